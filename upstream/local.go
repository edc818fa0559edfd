package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// localStore makes commits with go-git in a local checkout (PlanInput.Checkout)
// and pushes them to its remote. It never touches the worktree, the index or
// the checked-out branch: new commits are written as objects, kept under
// refs/cookbook-sync/<branch> and pushed to refs/heads/<branch> of the remote.
// Remote branch heads are read with ls-remote (fetching missing objects), so
// the remote — not the local clone — is the truth, like the API path.
type localStore struct {
	repo   *git.Repository
	remote *git.Remote
	name   string
	auth   transport.AuthMethod
	sig    func() (string, string, time.Time)
}

func openLocalStore(dir, remote, token string, sig func() (string, string, time.Time)) (*localStore, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: not a git checkout: %w", dir, err)
	}
	if remote == "" {
		remote = "origin"
	}
	r, err := repo.Remote(remote)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: remote %q: %w", dir, remote, err)
	}
	s := &localStore{repo: repo, remote: r, name: remote, sig: sig}
	if urls := r.Config().URLs; token != "" && len(urls) > 0 {
		if u, err := url.Parse(urls[0]); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
			if u.User != nil {
				return nil, fmt.Errorf("checkout %s: remote %q has credentials in its URL; remove them (the token comes from GH_TOKEN)", dir, remote)
			}
			// HTTP basic auth header; the token is never part of a URL or argument.
			s.auth = &githttp.BasicAuth{Username: "x-access-token", Password: token}
		}
	}
	return s, nil
}

func (s *localStore) ref(ctx context.Context, branch string) (string, error) {
	refs, err := s.remote.ListContext(ctx, &git.ListOptions{Auth: s.auth})
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return "", nil
		}
		return "", fmt.Errorf("ls-remote %s: %w", s.name, err)
	}
	want := plumbing.NewBranchReferenceName(branch)
	for _, r := range refs {
		if r.Name() != want {
			continue
		}
		h := r.Hash()
		if _, err := s.repo.CommitObject(h); err != nil {
			spec := config.RefSpec(fmt.Sprintf("+%s:refs/remotes/%s/%s", want, s.name, branch))
			err := s.remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: []config.RefSpec{spec}, Auth: s.auth})
			if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
				return "", fmt.Errorf("fetch %s %s: %w", s.name, branch, err)
			}
		}
		return h.String(), nil
	}
	return "", nil
}

func (s *localStore) message(_ context.Context, sha string) (string, error) {
	c, err := s.repo.CommitObject(plumbing.NewHash(sha))
	if err != nil {
		return "", err
	}
	return c.Message, nil
}

func (s *localStore) readFile(_ context.Context, commit, p string) ([]byte, bool, error) {
	c, err := s.repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, false, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, false, err
	}
	f, err := t.File(p)
	if err != nil {
		if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if !f.Mode.IsFile() {
		return nil, false, fmt.Errorf("%s is not a regular file", p)
	}
	str, err := f.Contents()
	if err != nil {
		return nil, false, err
	}
	return []byte(str), true, nil
}

func (s *localStore) writeCommit(_ context.Context, parent string, files []PlannedFile, msg string) (string, error) {
	st := s.repo.Storer
	pc, err := s.repo.CommitObject(plumbing.NewHash(parent))
	if err != nil {
		return "", err
	}
	root := pc.TreeHash
	for _, f := range files {
		if f.Change == "none" {
			continue
		}
		obj := st.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, err := obj.Writer()
		if err != nil {
			return "", err
		}
		if _, err := w.Write([]byte(f.New)); err != nil {
			return "", err
		}
		if err := w.Close(); err != nil {
			return "", err
		}
		bh, err := st.SetEncodedObject(obj)
		if err != nil {
			return "", err
		}
		if root, err = putPath(st, root, strings.Split(f.Path, "/"), bh); err != nil {
			return "", fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	name, email, when := s.sig()
	sig := object.Signature{Name: name, Email: email, When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: root, ParentHashes: []plumbing.Hash{pc.Hash}}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", err
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// putPath returns the hash of tree (ZeroHash = empty) with parts set to blob.
func putPath(st storer.EncodedObjectStorer, tree plumbing.Hash, parts []string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !tree.IsZero() {
		t, err := object.GetTree(st, tree)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	name := parts[0]
	idx := -1
	for i, e := range entries {
		if e.Name == name {
			idx = i
		}
	}
	var entry object.TreeEntry
	if len(parts) == 1 {
		mode := filemode.Regular
		if idx >= 0 {
			if entries[idx].Mode == filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is a directory", name)
			}
			if entries[idx].Mode == filemode.Executable {
				mode = filemode.Executable
			}
		}
		entry = object.TreeEntry{Name: name, Mode: mode, Hash: blob}
	} else {
		sub := plumbing.ZeroHash
		if idx >= 0 {
			if entries[idx].Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is not a directory", name)
			}
			sub = entries[idx].Hash
		}
		h, err := putPath(st, sub, parts[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entry = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	if idx >= 0 {
		entries[idx] = entry
	} else {
		entries = append(entries, entry)
	}
	// git's tree order: names compared with a trailing "/" on directories.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

func (s *localStore) setRef(ctx context.Context, branch, sha, old string, force bool) error {
	local := plumbing.ReferenceName("refs/cookbook-sync/" + branch)
	if err := s.repo.Storer.SetReference(plumbing.NewHashReference(local, plumbing.NewHash(sha))); err != nil {
		return err
	}
	spec := fmt.Sprintf("%s:refs/heads/%s", local, branch)
	opts := &git.PushOptions{RemoteName: s.name, Auth: s.auth}
	if force {
		opts.ForceWithLease = &git.ForceWithLease{RefName: plumbing.NewBranchReferenceName(branch), Hash: plumbing.NewHash(old)}
		spec = "+" + spec
	}
	opts.RefSpecs = []config.RefSpec{config.RefSpec(spec)}
	if err := s.remote.PushContext(ctx, opts); err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push %s: %w", branch, err)
	}
	return nil
}
