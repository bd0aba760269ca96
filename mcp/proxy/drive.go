package proxy

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// DrivePlan is a proxy plan as drive works through it (it implements
// mcp.Driven): each episode is served by a fresh `limbo-analyze proxy`
// process (the caller's Server) from a one-episode plan file, in front of
// a fresh upstream process.
type DrivePlan struct {
	Episodes []Episode
	// Args are the proxy's flags for every episode (--contract, delays).
	Args []string
	// Upstream names the upstream: "--upstream" and a URL, or "--" and
	// the command. "{episode}" in it becomes the episode's plan index, so
	// each episode can have state of its own (a database file).
	Upstream []string
	// Prompt is the task text of the episodes without their own.
	Prompt string
}

// NewDrivePlan reads a proxy plan file for drive: every proxy with the
// contract file (if any) and flags, in front of the upstream command, or
// of url when there is none; prompt is the task text of the episodes
// without their own.
func NewDrivePlan(planFile, contract string, flags, command []string, url, prompt string) (*DrivePlan, error) {
	eps, err := ReadPlan(planFile, false, ledger.ContractNative)
	if err != nil {
		return nil, err
	}
	var args []string
	if contract != "" {
		args = append(args, "--contract", contract)
	}
	upstream := append([]string{"--"}, command...)
	if url != "" {
		upstream = []string{"--upstream", url}
	}
	return &DrivePlan{Episodes: eps, Args: append(args, flags...), Upstream: upstream, Prompt: prompt}, nil
}

// Len is the number of episodes.
func (d *DrivePlan) Len() int { return len(d.Episodes) }

// EpisodeID is episode i's id.
func (d *DrivePlan) EpisodeID(i int) string { return d.Episodes[i].EpisodeID }

// EpisodePlan is episode i's one-episode plan file.
func (d *DrivePlan) EpisodePlan(i int) ([]byte, error) {
	return json.Marshal(map[string][]Episode{"episodes": {d.Episodes[i]}})
}

// Instruction is episode i's task text.
func (d *DrivePlan) Instruction(i int) string {
	if p := d.Episodes[i].Prompt; p != "" {
		return p
	}
	return d.Prompt
}

// ServerArgs are the proxy's arguments for episode i: the flags, the
// plan and ledger files, the upstream with "{episode}" replaced by i.
func (d *DrivePlan) ServerArgs(i int, plan, ledger string) []string {
	args := append(append([]string{}, d.Args...), "--plan", plan, "--ledger", ledger)
	for _, a := range d.Upstream {
		args = append(args, strings.ReplaceAll(a, "{episode}", strconv.Itoa(i)))
	}
	return args
}
