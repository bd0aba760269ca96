#!/bin/bash
# Runs deploy/slurm/drive-array.sbatch on a single-node Slurm started here,
# with the scripted harness (mcp/testdata/harness), and checks:
#   1. a 4-task array drives a 24-episode plan; merge gives every planned
#      episode exactly once, in plan order;
#   2. the same with task 2 requeued (scontrol requeue kills it mid-shard
#      and runs it again): still every planned episode exactly once.
# Needs root (it starts munged, slurmctld and slurmd, and installs Debian's
# slurm-wlm and munge with apt-get if they are missing); everything else
# lives in a scratch directory, and the daemons are stopped on exit.
#
#   scripts/slurm/test.sh            # from the repository root
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d /tmp/limbo-slurm.XXXXXX)
start=$(date +%s)
log() { echo "slurm-test: $*" >&2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	log "installing slurm-wlm and munge"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

cleanup() {
	set +e
	[ -n "${SLURM_CONF:-}" ] && scontrol shutdown >/dev/null 2>&1
	for p in slurmd slurmctld munged; do
		if [ -f "$W/$p.pid" ]; then
			pid=$(cat "$W/$p.pid")
			kill "$pid" 2>/dev/null
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$pid" 2>/dev/null
		fi
	done
	if [ "${KEEP:-}" = "" ]; then rm -rf "$W"; else log "kept $W"; fi
}
trap cleanup EXIT

log "building limbo-analyze and the scripted harness"
mkdir -p "$W/bin"
(cd "$ROOT" && go build -o "$W/bin/" ./cmd/limbo-analyze ./mcp/testdata/harness)

# munge with its own key and socket, so a system munged is left alone.
mkdir -p "$W/munge" && chmod 700 "$W/munge"
dd if=/dev/urandom of="$W/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$W/munge/munge.key"
munged --force --key-file="$W/munge/munge.key" --socket="$W/munge/munge.sock" \
	--pid-file="$W/munged.pid" --log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed"

host=$(hostname -s)
mkdir -p "$W/state" "$W/spool" "$W/out"
export SLURM_CONF=$W/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=limbo-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.sock
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
	sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
	sleep 0.2
done
sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)' || { log "node not up"; sinfo; tail "$W"/slurm*.log; exit 1; }
log "slurm $(sinfo -V) up after $(($(date +%s) - start)) s"

# A plan of 24 episodes: every template's first write, without a fault and
# with a timeout after the commit.
{
	echo '{"episodes": ['
	sep=""
	for t in 01 02 03 04 05 06 07 08 09 10 11 12; do
		for f in none timeout_post; do
			printf '%s{"template": "T%s", "instance": 0, "focal_index": 0, "fault_mode": "%s", "seed": 7, "model": "scripted", "harness": "slurm-test"}\n' "$sep" "$t" "$f"
			sep=","
		done
	done
	echo ']}'
} >"$W/plan.json"


# run NAME [requeue]: submit the array, optionally requeue task 2 once it
# has recorded an episode, wait, merge, check.
run() {
	local name=$1 requeue=${2:-} out=$W/out/$1
	mkdir -p "$out"
	local harness="$W/bin/harness -config {mcp_config} -policy verify-retry -task {task}"
	if [ -n "$requeue" ]; then harness="sleep 0.5; $harness"; fi
	local job
	job=$(cd "$out" && LIMBO=$W/bin/limbo-analyze PLAN=$W/plan.json OUT_DIR=$out HARNESS=$harness \
		DRIVE_ARGS="--grace 5s" sbatch --parsable --array=1-4 --export=ALL "$ROOT/deploy/slurm/drive-array.sbatch")
	log "$name: array job $job submitted"
	if [ -n "$requeue" ]; then
		for _ in $(seq 600); do
			[ -s "$out/part-2.jsonl" ] && break
			sleep 0.1
		done
		[ -s "$out/part-2.jsonl" ] || { log "$name: task 2 recorded nothing"; exit 1; }
		before=$(wc -l <"$out/part-2.jsonl")
		scontrol requeue "${job}_2"
		log "$name: requeued task 2 after $before of its 6 episodes"
		# Slurm holds a requeued batch job back (BeginTime about two
		# minutes on); let it start as soon as it is pending again.
		for _ in $(seq 100); do
			scontrol update JobId="${job}_2" StartTime=now 2>/dev/null && break
			sleep 0.1
		done
	fi
	for _ in $(seq 1800); do
		[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
		sleep 0.2
	done
	[ -z "$(squeue -h -j "$job")" ] || { log "$name: array still running"; squeue; exit 1; }
	for i in 1 2 3 4; do
		if ! grep -q "recorded in" "$out/limbo-drive-${job}_$i.out"; then
			log "$name: task $i did not finish:"; cat "$out/limbo-drive-${job}_$i.out" >&2; exit 1
		fi
	done
	if [ -n "$requeue" ]; then
		runs=$(grep -c "^drive-array: task 2/4" "$out/limbo-drive-${job}_2.out")
		[ "$runs" -ge 2 ] || { log "$name: task 2 ran $runs time(s), want a second run after the requeue"; exit 1; }
		log "$name: task 2 ran $runs times"
	fi
	"$W/bin/limbo-analyze" merge --out "$out/merged.jsonl" "$out"/part-*.jsonl
	# Every planned episode exactly once, in plan order.
	python3 - "$W/plan.json" "$out/merged.jsonl" "$W/bin/limbo-analyze" <<'PY'
import json, subprocess, sys
plan, merged, exe = sys.argv[1:]
ids = [json.loads(l)["episode_id"] for l in open(merged)]
want = []
for ep in json.load(open(plan))["episodes"]:
    want.append("mcp/%s/native/vanilla/default/%s/%s/0/0/%s" % (ep["harness"], ep["model"], ep["template"], ep["fault_mode"]))
if ids != want:
    sys.exit("merged ledger: %d lines, %d distinct; want the %d planned episodes once each, in plan order" % (len(ids), len(set(ids)), len(want)))
PY
	log "$name: $(wc -l <"$out/merged.jsonl") episodes merged, each planned episode exactly once"
}

run plain
run requeued requeue
log "passed in $(($(date +%s) - start)) s"
