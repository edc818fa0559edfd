// cookbook-sync patch (issue 24): in-process pipes. See PATCHES.md.

package interp

import (
	"io"
	"os"
	"sync"
	"time"
)

// pipeBuffer is how many bytes a memPipe holds before a write waits for
// the reader: the size of a Linux pipe's buffer, so that a writer runs
// ahead of its reader as far as it would with an OS pipe.
const pipeBuffer = 64 << 10

// memPipe is an in-process pipe with an OS pipe's behaviour: a write
// waits only while the buffer is full; a read waits while it is empty and
// the write end is open, and sees io.EOF once it is closed and drained; a
// write after the read end is closed fails (io.ErrClosedPipe, where an OS
// pipe gives EPIPE); a read deadline (the read builtin's cancellation)
// makes a waiting or later read fail with os.ErrDeadlineExceeded.
type memPipe struct {
	mu       sync.Mutex
	cond     sync.Cond
	buf      []byte
	closedW  bool
	closedR  bool
	expired  bool
	deadline *time.Timer
}

// memPipeReader and memPipeWriter are a memPipe's two ends.
type (
	memPipeReader struct{ p *memPipe }
	memPipeWriter struct{ p *memPipe }
)

func newMemPipe() (*memPipeReader, *memPipeWriter) {
	p := &memPipe{}
	p.cond.L = &p.mu
	return &memPipeReader{p}, &memPipeWriter{p}
}

// newFilledPipe is the read end of a pipe that holds s and whose write
// end is closed (a here-document: its text is made in full first).
func newFilledPipe(s string) *memPipeReader {
	r, _ := newMemPipe()
	r.p.buf = []byte(s)
	r.p.closedW = true
	return r
}

func (r *memPipeReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.closedW && !p.closedR && !p.expired {
		p.cond.Wait()
	}
	switch {
	case p.closedR:
		return 0, os.ErrClosed
	case p.expired:
		return 0, os.ErrDeadlineExceeded
	case len(p.buf) == 0:
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Broadcast()
	return n, nil
}

func (r *memPipeReader) Close() error {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closedR = true
	p.buf = nil
	if p.deadline != nil {
		p.deadline.Stop()
	}
	p.cond.Broadcast()
	return nil
}

// SetReadDeadline makes reads fail once t has passed (zero: never).
func (r *memPipeReader) SetReadDeadline(t time.Time) error {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deadline != nil {
		p.deadline.Stop()
		p.deadline = nil
	}
	p.expired = false
	switch {
	case t.IsZero():
	case !t.After(time.Now()):
		p.expired = true
	default:
		p.deadline = time.AfterFunc(time.Until(t), func() {
			p.mu.Lock()
			p.expired = true
			p.cond.Broadcast()
			p.mu.Unlock()
		})
	}
	p.cond.Broadcast()
	return nil
}

func (w *memPipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for n < len(b) {
		for len(p.buf) >= pipeBuffer && !p.closedR && !p.closedW {
			p.cond.Wait()
		}
		if p.closedR {
			return n, io.ErrClosedPipe
		}
		if p.closedW {
			return n, os.ErrClosed
		}
		k := min(len(b)-n, pipeBuffer-len(p.buf))
		p.buf = append(p.buf, b[n:n+k]...)
		n += k
		p.cond.Broadcast()
	}
	return n, nil
}

func (w *memPipeWriter) Close() error {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closedW = true
	p.cond.Broadcast()
	return nil
}
