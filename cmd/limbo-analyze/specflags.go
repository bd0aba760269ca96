package main

// specFlags maps the spec and configuration fields that library errors
// name (fieldtext.Rename) to the flags that set them, so that a
// command's errors speak of its flags. A field has the same flag in every
// command that has it.
var specFlags = map[string]string{
	// The query of every analysis.
	"Where": "--where", "Weight": "--weight",
	// rates, paired, tost.
	"Outcome": "--outcome", "By": "--by", "Cluster": "--cluster", "ICCBy": "--icc-by", "Level": "--level",
	"Arm": "--arm", "Base": "--base", "Levels": "--levels", "PairBy": "--pair-by", "Test": "--test", "Adjust": "--adjust",
	"A": "--a", "B": "--b", "Margin": "--margin", "Method": "--method", "PairedBy": "--paired-by",
	// model and shapley.
	"Fit": "--fit", "Family": "--family", "Link": "--link", "Formula": "--formula", "Group": "--group", "Corr": "--corr",
	"Cov": "--cov", "Convention": "--convention", "Order": "--order", "NAGQ": "--nagq", "ML": "--ml", "Firth": "--firth",
	"Refs": "--ref", "R2": "--r2", "Variable": "--contrast", "RandomEffects": "--random-effects",
	// the bootstrap of rates, paired, model, shapley and tables.
	"Replicates": "--bootstrap", "Seed": "--seed", "Interval": "--interval",
	// repeats.
	"Outcomes": "--outcome", "K": "--k", "RepeatBy": "--repeat-by", "Consistency": "--consistency",
	// power.
	"Reps": "--reps", "Jobs": "--jobs", "Sizes": "--sizes", "Target": "--target", "Scale": "--scale",
	// export, grade and validate.
	"MaxPartitions": "--max-partitions", "Strict": "--strict",
	// simulate, merge, serve and drive.
	"Out": "--out", "Shard": "--shard", "Episodes": "--episodes", "Design": "--design",
	"Transport": "--transport", "Addr": "--addr", "AllowRemote": "--allow-remote", "AllowedOrigins": "--allow-origin", "Ledger": "--ledger", "PlanFile": "--plan",
	"Template": "--template", "Replay": "--replay", "FaultMode": "--fault", "Contract": "--contract", "Harness": "--harness", "Parallel": "--parallel",
	"Timeout": "--timeout", "Grace": "--grace", "Server": "--server",
	// proxy (its Addr is --http: proxyFlags).
	"ReplayMiss": "--replay-miss", "Record": "--record", "URL": "--upstream", "LateDelay": "--late-delay", "TailScale": "--tail-scale",
	"RedeliveryDelay": "--redelivery-delay", "StartTimeout": "--start-timeout", "CallTimeout": "--call-timeout",
	"Guard": "--guard", "State": "--state", "KeyTTL": "--key-ttl", "VerifyAfter": "--verify-after",
	"ThinkS": "--think-s", "MaxCalls": "--max-calls", "MaxTimeS": "--max-time-s", "MaxArgBytes": "--max-arg-bytes",
}
