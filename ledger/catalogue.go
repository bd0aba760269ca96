package ledger

// The paper's tool catalogue (docs/simulation.md, Tool catalogue). A focal write or a call
// to a tool outside it is a plausibility warning, never an error: users'
// harnesses have their own tools.
// BatchWriteTool is the sandbox's batch write, the only one on which it
// injects partial_batch.
const BatchWriteTool = "data_insert_many"

var (
	// PaperWriteTools are the sandbox's write tools.
	PaperWriteTools = []string{
		"social_publish", "social_delete_post",
		"billing_create_charge", "billing_refund_charge",
		"tickets_create", "tickets_add_comment", "tickets_update_status",
		"mail_send",
		"data_insert", "data_insert_many", "data_upsert",
		"deploy_trigger",
	}
	// PaperOtherTools are the sandbox's read tools and the
	// condition-specific tools.
	PaperOtherTools = []string{
		"social_list_posts", "billing_list_charges",
		"tickets_list_recent", "tickets_search",
		"mail_search_sent", "data_query",
		"deploy_list_runs", "deploy_get_run",
		"state_oracle", "outcome_oracle", "wait",
	}
	// PaperServices are the sandbox's services (the service column; the
	// prefix of each tool's name).
	PaperServices = []string{"social", "billing", "tickets", "mail", "data", "deploy"}
	// PaperPlatforms are the social platforms (the platform column of a
	// social write).
	PaperPlatforms = []string{"mastodon", "weibo", "linkedin", "x"}
)
