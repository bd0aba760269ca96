package view

import (
	"context"
	"fmt"
	"net"
)

// WriteNote writes the site into dir (Write) and returns the line a
// command prints about it: the episodes, the files and their size, and
// the page to open.
func (s *Site) WriteNote(dir string) (string, error) {
	if err := s.Write(dir); err != nil {
		return "", err
	}
	m := s.Data.Meta
	list, total := s.Size()
	return fmt.Sprintf("wrote %d episodes (%d with timelines) to %s: %d files, %.1f MB (%.1f MB for the list page); open %s",
		m.Shown, m.Timeline, dir, len(s.Files()), float64(total)/1e6, float64(list)/1e6, dir+"/index.html"), nil
}

// ListenAndServe listens on addr (already checked by ServeAddr), tells
// listening the address it got, and serves the site until ctx is done.
func (s *Site) ListenAndServe(ctx context.Context, addr string, listening func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if listening != nil {
		listening(ln.Addr())
	}
	return s.Serve(ctx, ln)
}
