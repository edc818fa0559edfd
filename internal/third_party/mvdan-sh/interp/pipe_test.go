// cookbook-sync patch (issue 24): tests of the in-process pipe.

package interp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// TestMemPipe: a memPipe behaves as an OS pipe does for the interpreter —
// a writer runs ahead by pipeBuffer bytes and no more, a reader drains it
// and then sees EOF, a write to a closed reader fails, a read deadline
// stops a waiting read and a zero one clears it.
func TestMemPipe(t *testing.T) {
	r, w := newMemPipe()
	big := bytes.Repeat([]byte("x"), pipeBuffer+10)
	done := make(chan int)
	go func() {
		n, _ := w.Write(big)
		w.Close()
		done <- n
	}()
	select {
	case <-done:
		t.Fatal("a write past the buffer returned before anything was read")
	case <-time.After(20 * time.Millisecond):
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(big))
	}
	if n := <-done; n != len(big) {
		t.Errorf("wrote %d, want %d", n, len(big))
	}

	r, w = newMemPipe()
	if _, err := w.Write([]byte("ab")); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := w.Write([]byte("c")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write after the reader closed: %v, want io.ErrClosedPipe", err)
	}

	r, _ = newMemPipe()
	go func() {
		time.Sleep(10 * time.Millisecond)
		r.SetReadDeadline(time.Now())
	}()
	if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a read past its deadline: %v", err)
	}
	r.SetReadDeadline(time.Time{})
	r2, w2 := newMemPipe()
	w2.Write([]byte("z"))
	r2.SetReadDeadline(time.Now().Add(time.Hour))
	if b := make([]byte, 1); func() bool { n, err := r2.Read(b); return n != 1 || err != nil }() {
		t.Error("a read before a future deadline failed")
	}

	if got, _ := io.ReadAll(newFilledPipe("doc\n")); string(got) != "doc\n" {
		t.Errorf("filled pipe: %q", got)
	}
}

// TestInProcessPipes: pipelines, here-documents, here-strings and read run
// over in-process pipes with the output bash gives, a writer that outlives
// its reader gets a write error, and a read blocked on a pipe ends with the context.
func TestInProcessPipes(t *testing.T) {
	for src, want := range map[string]string{
		"printf 'a\\nb\\n' | while read -r l; do echo \"<$l>\"; done": "<a>\n<b>\n",
		"cat <<EOF\nx $((1+1))\nEOF\n":                                "x 2\n",
		"read -r v <<< 'w o'; echo \"$v\"":                            "w o\n",
		"yes_ | { read -r a; echo $a; }":                              "y\n",
		"echo a | { echo b | cat; cat; }":                             "b\na\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		r, err := New(StdIO(nil, &out, &out), ExecHandlers(func(next ExecHandlerFunc) ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if args[0] == "yes_" { // writes until its reader is gone
					hc := HandlerCtx(ctx)
					for {
						if _, err := io.WriteString(hc.Stdout, "y\n"); err != nil {
							return nil
						}
					}
				}
				if args[0] == "cat" {
					hc := HandlerCtx(ctx)
					if hc.Stdin != nil {
						io.Copy(hc.Stdout, hc.Stdin)
					}
					return nil
				}
				return next(ctx, args)
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := r.Run(ctx, f); err != nil {
			t.Errorf("%q: %v", src, err)
		}
		cancel()
		if out.String() != want {
			t.Errorf("%q: output %q, want %q", src, out.String(), want)
		}
	}

	r0, _ := newMemPipe() // a writer that never writes nor closes
	f, _ := syntax.NewParser().Parse(strings.NewReader("read -r v; echo done"), "")
	var out bytes.Buffer
	r, _ := New(StdIO(r0, &out, &out))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	finished := make(chan struct{})
	go func() { r.Run(ctx, f); close(finished) }()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("read on a silent pipe did not end with its context")
	}
}
