package localhttp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr (a loopback address unless allowRemote) and serves
// h until wait returns, then shuts the server down, closing it when
// connections are still busy after 2 s. Headers must arrive within 10 s
// (a handler bounds its bodies itself, and lifts the bound before an SSE
// stream) and idle keep-alive connections close after 2 min. ready, if
// set, gets the bound address (for port 0). wait gets the channel the
// server's own error comes on; an error it returns is Serve's, without a
// shutdown (the server has failed).
func Serve(ctx context.Context, addr string, allowRemote bool, h http.Handler, ready func(net.Addr), wait func(served <-chan error) error) error {
	if err := CheckAddr(addr, allowRemote); err != nil {
		return fmt.Errorf("address %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if err := wait(errc); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	return nil
}

// Linger waits while live reports open sessions, for at most grace or
// until ctx is done: once every episode is recorded the clients may still
// close their sessions (DELETE), and are answered for a short while.
func Linger(ctx context.Context, grace time.Duration, live func() int) {
	deadline := time.Now().Add(grace)
	for live() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
}
