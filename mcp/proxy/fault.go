package proxy

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// The fault modes the proxy injects, at the commit boundary of the focal
// call (docs/proxy.md, Faults): what the agent observes and what reaches
// the upstream.
//
//	none              forwarded, answered as the upstream answered
//	timeout_pre       not forwarded; answered as a timeout
//	timeout_post      forwarded; the upstream's answer dropped, answered as a timeout
//	timeout_late      answered as a timeout at once; forwarded after the late delay
//	timeout_late_tail as timeout_late, the delay drawn from the heavy tail
//	http500_pre       not forwarded; answered as an HTTP 500
//	http500_post      forwarded; answered as an HTTP 500
//	redelivery        forwarded, answered as the upstream answered; forwarded again after the redelivery delay
//	partial_batch     the first ⌈n/2⌉ of the batch's n items forwarded; answered as an HTTP 500
//	session_lost      (HTTP) forwarded; the session is closed and the request answered 404
//	stream_drop       (HTTP) forwarded; the connection is cut before the answer
//
// The catalogue (ledger.Faults) says which modes the proxy injects
// (ledger.SiteProxy).
var proxyModes = ledger.FaultNames(func(m ledger.FaultMode) bool { return m.InjectedBy(ledger.SiteProxy) })

// Modes lists the fault modes the proxy injects.
func Modes() []string { return append([]string(nil), proxyModes...) }

// HTTPOnly reports whether the mode is a fault of the transport, which the
// proxy can inject only over streamable HTTP.
func HTTPOnly(mode string) bool {
	m, _ := ledger.FaultByName(mode)
	return m.Group == ledger.GroupTransport
}

// The observations of a fault, as serve's sandbox gives them
// (docs/simulation.md, Fault modes): the same JSON text, so that a harness
// sees a proxied fault as it sees a served one.
const (
	msg500 = "internal server error"
	// DefaultClientTimeoutS is the client timeout a timeout's message
	// names, the sandbox's.
	DefaultClientTimeoutS = 30
)

func timeoutMsg(s float64) string {
	return "request timed out after " + strconv.FormatFloat(s, 'f', -1, 64) + " s (no response received)"
}

// faultResult is the tool result of a fault's observation: serve's
// response JSON ({"outcome", "error", "clock_s"}) as text, and as
// structured content unless the tool declares an output schema (an error
// result need not match it, but some clients check anyway).
func faultResult(outcome, msg string, clockS float64, structured bool) *sdk.CallToolResult {
	text, _ := json.Marshal(struct {
		Outcome string  `json:"outcome"`
		Error   string  `json:"error"`
		ClockS  float64 `json:"clock_s"`
	}{outcome, msg, clockS})
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}, IsError: true}
	if structured {
		r.StructuredContent = json.RawMessage(text)
	}
	return r
}

// The heavy tail of timeout_late_tail (docs/simulation.md, Heavy-tailed
// delay): a Pareto law with shape 0.181 truncated to [40 s, 7200 s], fitted
// to the paper's P(δ ≤ 60 s) = 12% and P(δ ≤ 300 s) = 50%.
const (
	tailAlpha = 0.181
	tailLoS   = 40
	tailHiS   = 7200
)

// TailDelay draws a timeout_late_tail delay for a world: the tail's
// quantile at a uniform from a PCG seeded with seed and the world's key,
// so that every arm of one world (a guard and its baseline) meets the same
// delay.
func TailDelay(seed uint64, world string) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(world))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	s := stats.TruncParetoQuantile(r.Float64(), tailAlpha, tailLoS, tailHiS)
	return time.Duration(math.Round(s * float64(time.Second)))
}
