// Package stdioguard puts a guard in front of the MCP SDK's stdio
// transport for the toolkit's servers (serve and proxy): a line that is
// not a JSON-RPC message is answered with a JSON-RPC error instead of
// ending the session, the end of the client's input waits for the answers
// to the requests already received, and tool calls reach the server one
// at a time in the order they arrived, so an episode's calls are recorded
// in the client's order.
package stdioguard
