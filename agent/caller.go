package agent

import "github.com/limbo-toolkit/limbo/sandbox"

// Caller is the door to the tools: *sandbox.World satisfies it, and so do the
// wrappers of this package (the SDK retry client and the guard), so that the
// MCP server can stack the same guard in front of a world unchanged.
type Caller interface {
	Call(tool string, args map[string]any) sandbox.Observation
	Now() float64
	Advance(dt float64)
}

var _ Caller = (*sandbox.World)(nil)

// RetryClient is the sdk-retry condition (docs/simulation.md, Agents: conditions): a
// client library that retries timeouts, HTTP 5xx, refused connections and
// 429s transparently, re-sending the identical request (same arguments, so
// the same idempotency key if one was attached). The agent sees only the
// last response. Backoff doubles from BackoffS; a 429 waits its Retry-After.
type RetryClient struct {
	Next       Caller
	MaxRetries int     // retries after the first attempt (default 2)
	BackoffS   float64 // first backoff in seconds (default 1)
}

// Call sends the request and retries it while the response is retryable.
func (c *RetryClient) Call(tool string, args map[string]any) sandbox.Observation {
	obs := c.Next.Call(tool, args)
	max := c.MaxRetries
	if max == 0 {
		max = 2
	}
	back := c.BackoffS
	if back == 0 {
		back = 1
	}
	for i := 0; i < max; i++ {
		switch obs.Outcome {
		case "timeout", "http500", "conn_refused":
			c.Next.Advance(back)
		case "http429":
			c.Next.Advance(max64(obs.RetryAfterS, back))
		default:
			return obs
		}
		back *= 2
		obs = c.Next.Call(tool, args)
	}
	return obs
}

// Now is the world's clock.
func (c *RetryClient) Now() float64 { return c.Next.Now() }

// Advance moves the world's clock.
func (c *RetryClient) Advance(dt float64) { c.Next.Advance(dt) }

func max64(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
