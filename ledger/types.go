package ledger

// SchemaVersion is the version of the ledger schema written into Parquet
// key-value metadata and JSONL sidecars. Bump it when a column changes meaning.
const SchemaVersion = "1"

// Episode is one graded episode: the design fields that place it in an
// experiment and the outcome fields the grader derives. Each field holds
// the column of EpisodeColumns its json tag names (go generate pairs them
// and checks the types; see EpisodeColumns).
type Episode struct {
	// Design.
	EpisodeID  string `json:"episode_id"`
	Experiment string `json:"experiment"`
	Model      string `json:"model"`
	Harness    string `json:"harness"`
	Contract   string `json:"contract"`
	Condition  string `json:"condition"`
	Cue        string `json:"cue"`
	Service    string `json:"service"`
	Template   string `json:"template"`
	Instance   int64  `json:"instance"`
	Task       string `json:"task"`
	FocalWrite string `json:"focal_write"`
	FocalIndex int64  `json:"focal_index"`
	Platform   string `json:"platform"`
	PairKey    string `json:"pair_key"`
	WriteClass string `json:"write_class"`
	ReadPath   string `json:"read_path"`
	Reversible bool   `json:"reversible"`
	FaultMode  string `json:"fault_mode"`
	// FaultFired: the focal write was issued, so the assigned mode was
	// applied to it (true under "none" too).
	FaultFired bool    `json:"fault_fired"`
	DelayS     float64 `json:"delay_s"`
	Weight     float64 `json:"weight"`
	Seed       int64   `json:"seed"`
	// The agent-side design (group replay): "" in a ledger without it.
	AgentFault  string `json:"agent_fault,omitempty"`
	CrashWindow string `json:"crash_window,omitempty"`
	Guard       string `json:"guard,omitempty"`

	// Outcome.
	ExpectedCommits   int64    `json:"expected_commits"`
	FocalCommits      int64    `json:"focal_commits"`
	Duplicated        bool     `json:"duplicated"`
	TaskSuccess       bool     `json:"task_success"`
	EOS               bool     `json:"eos"`
	ToolCalls         int64    `json:"tool_calls"`
	AgentTimeS        float64  `json:"agent_time_s"`
	CostUSD           *float64 `json:"cost_usd,omitempty"` // optional: nil when the harness did not report it
	ReportedSuccess   bool     `json:"reported_success"`
	UncertaintyListed bool     `json:"uncertainty_listed"`
	Overclaim         bool     `json:"overclaim"`
	Recovery          string   `json:"recovery"`
	// FirstMove is optional: "" in a ledger graded before the column was
	// added (docs/ledger.md).
	FirstMove string `json:"first_move,omitempty"`
	// The agent-side outcomes (group replay): graded only for an episode
	// that carries agent_fault.
	ExactDuplicated bool  `json:"exact_duplicated,omitempty"`
	Perturbed       bool  `json:"perturbed,omitempty"`
	Suppressed      bool  `json:"suppressed,omitempty"`
	ErrorReplayed   bool  `json:"error_replayed,omitempty"`
	GuardAnswers    int64 `json:"guard_answers,omitempty"`

	// Extra holds a user's own columns (CSV), kept through export and
	// usable by the analysis commands. Never written by the simulator.
	Extra map[string]string `json:"-"`
}

// Call is one tool call made by the agent (or by a client or middleware
// acting for it) during an episode.
type Call struct {
	EpisodeID      string  `json:"episode_id,omitempty"` // implied by the enclosing episode in a raw JSONL line
	Seq            int64   `json:"seq"`
	TS             float64 `json:"t_s"`
	Tool           string  `json:"tool"`
	Args           string  `json:"args"` // JSON text of the arguments as sent
	IdempotencyKey string  `json:"idempotency_key"`
	Outcome        string  `json:"outcome"`
	LatencyS       float64 `json:"latency_s"`
}

// Effect is one committed or key-absorbed effect in the sandbox's ledger.
// Seq is the seq of the call that issued the request the effect came from
// (for a redelivered or late copy, the original call's seq), which is how a
// grader recovers the effect's arguments and so its logical identity.
type Effect struct {
	EpisodeID      string  `json:"episode_id,omitempty"`
	Seq            int64   `json:"seq"`
	Service        string  `json:"service"`
	Tool           string  `json:"tool"`
	ResourceID     string  `json:"resource_id"`
	IdempotencyKey string  `json:"idempotency_key"`
	Attempt        int64   `json:"attempt"`
	IssuedAtS      float64 `json:"issued_at_s"`
	CommittedAtS   float64 `json:"committed_at_s"`
	Source         string  `json:"source"`
	Absorbed       bool    `json:"absorbed"`
	Focal          bool    `json:"focal"`
}

// FinalReport is what the agent says at the end of an episode; overclaim is
// graded from it.
type FinalReport struct {
	Status        string   `json:"status"`
	Uncertainties []string `json:"uncertainties"`
}

// RawEpisode is one line of a raw JSONL ledger: the design fields, the
// nested calls and effects, and the final report. Its outcome fields are
// derived by a grader (package sandbox provides the paper's).
type RawEpisode struct {
	Episode
	Calls       []Call       `json:"calls"`
	Effects     []Effect     `json:"effects"`
	FinalReport *FinalReport `json:"final_report"`
	// Rules, when set, are the line's own grading rules (a proxied
	// episode's): readers grade the line by them (GradeRules) rather than
	// by the task templates of their Grader.
	Rules *Rules `json:"rules,omitempty"`
}

// Grader derives the outcome fields of a raw episode. Readers that meet a
// raw line call it (GradeRules for a line that carries its rules);
// package sandbox implements the paper's grading.
type Grader func(raw *RawEpisode) (Episode, error)
