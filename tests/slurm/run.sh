#!/usr/bin/env bash
# The scheduler test (issue 50): deploy/slurm submitted to a real one-node Slurm cluster
# (scripts/slurm_local.sh; root needed: without it this fails with the reason, it does not skip).
# On a small case (the zoo's yolo11n-pose and yolo11n at imgsz 64, the 4 + 4 coco8-pose photos in
# data/), two array tasks at 1 CPU each:
#   A. deploy/slurm/submit.sh as a user runs it, from a scratch folder: calibration shards ->
#      merge, study workers -> collect, each after its dependency; the merged statistics equal one
#      `edgeq calibrate` pass byte for byte, data.json equals a one-process study's (timing fields
#      aside), no claim is left, every job's log is in EDGEQ_DATA/logs and none elsewhere.
#   B. scancel of a running worker task while it holds a claim, resubmitted as the same index;
#      `scontrol requeue` of the other while it holds a claim (study.sbatch has --requeue).
#   C. A worker task over its time limit (--time=1): it hangs (SIGSTOP) holding a claim, the other
#      worker takes the claim over when its lease (5 s) lapses, Slurm ends the hung one (TIMEOUT).
#   B and C: then collect; data.json equals the one-process study's and no claim is left.
# The cluster is brought down (no daemon, no file left) whatever happens. Prints the time taken.
#   tests/slurm/run.sh [EDGEQ]   (EDGEQ: the program, build/edgeq by default)
set -euo pipefail
# The daemons run as root: a user with password-less sudo (as scripts/setup.sh installs with)
# runs the whole test under it; anyone else gets slurm_local.sh's reason below.
if [ "$(id -u)" -ne 0 ] && command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
  exec sudo -n -E "$0" "$@"
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:-$root/build/edgeq}")
[ -x "$bin" ] || { echo "tests/slurm: error: no program at $bin (build edgeq first)" >&2; exit 1; }
t0=$(date +%s.%N)
work=$(mktemp -d /tmp/edgeq-slurm-test.XXXXXX)
cluster=$work/cluster

cleanup() {
  local rc=$?
  "$root/scripts/slurm_local.sh" down "$cluster" || rc=1
  rm -rf "$work"
  printf 'tests/slurm: %s in %.0f s\n' "$([ $rc -eq 0 ] && echo passed || echo FAILED)" \
    "$(awk "BEGIN {print $(date +%s.%N) - $t0}")"
  exit $rc
}
trap cleanup EXIT
fail() {
  echo "tests/slurm: FAIL: $*" >&2
  squeue -o '%i %j %T %r' >&2 2> /dev/null || true
  exit 1
}
step() { printf '== tests/slurm [%3.0f s] %s\n' "$(awk "BEGIN {print $(date +%s.%N) - $t0}")" "$*"; }

"$root/scripts/slurm_local.sh" up "$cluster"
export SLURM_CONF=$cluster/slurm.conf
mkdir -p "$work/bin"
ln -s "$bin" "$work/bin/edgeq"
export PATH=$work/bin:$PATH  # the jobs find `edgeq` on the PATH sbatch passes on

# The case: the shared folder as deploy/slurm expects it (yolo11n-pose.onnx, calib/, study.json).
data=$work/data
mkdir -p "$data/calib" "$data/test"
edgeq zoo yolo11n-pose -o "$data/yolo11n-pose.onnx" --imgsz 64 > /dev/null
edgeq zoo yolo11n -o "$data/yolo11n.onnx" --imgsz 64 > /dev/null
cp "$root"/data/coco8-pose/images/train/*.jpg "$data/calib/"
cp "$root"/data/coco8-pose/images/val/*.jpg "$data/test/"
cat > "$data/study.json" << EOF
{"models": ["$data/yolo11n-pose.onnx", "$data/yolo11n.onnx"], "images": "$data/calib",
 "test": "$data/test", "arms": ["A", "C"], "schemes": ["w8a16", "w8a8"], "bench_runs": 1,
 "bench_warmup": 0, "thumbnails": 1, "test_n": 2}
EOF
step "one process: calibrate, study (the references)"
edgeq calibrate --model "$data/yolo11n-pose.onnx" --images "$data/calib" --n 1024 \
  --out "$work/one.cbor" > /dev/null 2>&1
edgeq study --config "$data/study.json" --out "$work/one" --threads 2 > /dev/null 2>&1

# --- helpers -----------------------------------------------------------------------------------
# Waits until none of the jobs is pending or running; a job pending for a reason no wait can
# cure (no node can ever run it) fails at once with that reason.
wait_jobs() {
  local ids=$1 deadline=$((SECONDS + ${2:-240})) q
  while q=$(squeue -h -j "$ids" -o '%i %j %T %r' 2> /dev/null) && [ -n "$q" ]; do
    if grep -qE 'PartitionConfig|PartitionNodeLimit|PartitionTimeLimit|BadConstraints|ReqNodeNotAvail|DependencyNeverSatisfied' <<< "$q"; then
      fail "a job can never start: $q"
    fi
    [ $SECONDS -lt $deadline ] || fail "jobs still queued or running after ${2:-240} s: $q"
    sleep 0.3
  done
}
# "TASK STATE" for every task of job ID (scontrol keeps finished jobs for MinJobAge).
states() {
  scontrol show job -o "$1" | sed -E 's/.*(JobId=[0-9]+).*ArrayTaskId=([0-9]+).*JobState=([A-Z_]+).*/\2 \3/;
    s/.*JobId=([0-9]+) .*JobState=([A-Z_]+).*/- \2/' | sort
}
state_of() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
field() { scontrol show job -o "$1" | grep -o "$2=[^ ]*" | cut -d= -f2; }
expect_states() {
  local got
  got=$(states "$1" | tr '\n' ',')
  [ "$got" = "$2" ] || fail "job $1: states $got, expected $2"
}
# The study's data.json without its timing fields (as tests/cli_util.cpp's without_timing).
same_study() {
  python3 - "$1" "$2" << 'EOF' || fail "$1 differs from $2 (timing fields aside)"
import json, sys
def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in
                ("timing", "seconds", "peak_rss_bytes", "peak", "throughput_ms_per_run", "out")
                and not k.endswith("_ms")}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j
a, b = (strip(json.load(open(p))) for p in sys.argv[1:])
sys.exit(a != b)
EOF
}
no_claims() {
  local left
  left=$(find "$1/cache/claims" -type f 2> /dev/null || true)
  [ -z "$left" ] || fail "claims left behind: $left"
}
# A copy of the shared folder's inputs for another study (its own cache and logs).
fresh() {
  mkdir -p "$1/logs"
  cp "$data/study.json" "$1/"
}
# The pid of worker I's edgeq on study folder D, when it runs.
worker_pid() { pgrep -f -- "--out $1/study --worker $2/2 " | head -n 1 || true; }
# Whether a claim in study folder D is held by worker I/2 (the claim file's first line).
holds_claim() {
  local f
  for f in "$1"/study/cache/claims/*.claim; do
    [ "$(head -n 1 "$f" 2> /dev/null)" = "$2/2" ] && return 0
  done
  return 1
}

# --- A: submit.sh as a user runs it --------------------------------------------------------------
step "A: deploy/slurm/submit.sh (2 shards, 2 workers, 1 CPU each)"
mkdir -p "$work/caller"
ids=$(cd "$work/caller" && EDGEQ_DATA=$data EDGEQ_SHARDS=2 EDGEQ_WORKERS=2 EDGEQ_CPUS=1 \
  EDGEQ_LEASE=5 "$root/deploy/slurm/submit.sh")
echo "   submitted: $ids"
eval "$ids"  # calibrate=ID merge=ID study=ID collect=ID
# shellcheck disable=SC2154  # set by the eval
wait_jobs "$calibrate,$merge,$study,$collect"
expect_states "$calibrate" "0 COMPLETED,1 COMPLETED,"
expect_states "$merge" "- COMPLETED,"
expect_states "$study" "0 COMPLETED,1 COMPLETED,"
expect_states "$collect" "- COMPLETED,"
# The two array tasks shared the node: they ran at once.
s0=$(field "${study}_0" StartTime) s1=$(field "${study}_1" StartTime)
e0=$(field "${study}_0" EndTime) e1=$(field "${study}_1" EndTime)
if [[ "$s1" > "$e0" || "$s0" > "$e1" ]]; then
  fail "the study's array tasks did not overlap ($s0-$e0, $s1-$e1)"
fi
# Each dependent job started after everything it depends on ended.
for pair in "$merge:$calibrate" "$collect:$study"; do
  after=${pair%%:*} before=${pair##*:}
  start=$(field "$after" StartTime)
  for end in $(scontrol show job -o "$before" | grep -o 'EndTime=[^ ]*' | cut -d= -f2); do
    [[ "$end" < "$start" || "$end" == "$start" ]] || fail "job $after started at $start, before $before ended ($end)"
  done
done
cmp "$data/stats/all.cbor" "$work/one.cbor" || fail "merged statistics differ from one pass"
same_study "$data/study/data.json" "$work/one/data.json"
no_claims "$data/study"
[ -f "$data/study/index.html" ] || fail "no index.html"
nlogs=$(find "$data/logs" -name '*.out' | wc -l)
[ "$nlogs" -eq 6 ] || fail "expected 6 job logs in $data/logs, found $nlogs"
strays=$(find "$work/caller" "$root/deploy" -name 'slurm-*.out')
[ -z "$strays" ] || fail "job logs outside EDGEQ_DATA/logs: $strays"
echo "   merged stats == one pass (cmp); data.json == one process; 6 logs in EDGEQ_DATA/logs"

# --- B: scancel + resubmission, scontrol requeue ----------------------------------------------
step "B: scancel of worker 1 while it holds a claim, resubmitted; scontrol requeue of worker 0"
b=$work/b
fresh "$b"
export EDGEQ_DATA=$b EDGEQ_WORKERS=2 EDGEQ_LEASE=5
job=$(sbatch --parsable --array=0-1 --cpus-per-task=1 --output="$b/logs/%x-%A_%a.out" \
  "$root/deploy/slurm/study.sbatch")
# Each worker is hit while it holds a claim (both claim a step at once when they start).
deadline=$((SECONDS + 60))
cancelled=no requeued=no
while [ $cancelled = no ] || [ $requeued = no ]; do
  [ $SECONDS -lt $deadline ] || fail "no claim held: scancel done: $cancelled, requeue done: $requeued"
  if [ $cancelled = no ] && holds_claim "$b" 1; then
    scancel "${job}_1"
    cancelled=yes
  fi
  if [ $requeued = no ] && holds_claim "$b" 0; then
    scontrol requeue "${job}_0" || fail "scontrol requeue ${job}_0 failed"
    requeued=yes
  fi
  sleep 0.02
done
wait_jobs "${job}_1" 30
[ "$(state_of "${job}_1")" = CANCELLED ] || fail "task 1: $(state_of "${job}_1"), expected CANCELLED"
left=$(grep -lx '1/2' "$b"/study/cache/claims/*.claim 2> /dev/null | wc -l || true)
echo "   task 1 cancelled; claims it left: $left (released on SIGTERM, or taken over below)"
# Resubmitted as the same index of the same N (the one-task array's own count would be 1).
again=$(sbatch --parsable --array=1 --cpus-per-task=1 --output="$b/logs/%x-%A_%a.out" \
  "$root/deploy/slurm/study.sbatch")
wait_jobs "$job,$again" 180
[ "$(state_of "${job}_0")" = COMPLETED ] || fail "task 0: $(state_of "${job}_0") after its requeue"
[ "$(field "${job}_0" Restarts)" -ge 1 ] || fail "task 0 never restarted"
expect_states "$again" "1 COMPLETED,"
coll=$(sbatch --parsable --output="$b/logs/%x-%j.out" "$root/deploy/slurm/collect.sbatch")
wait_jobs "$coll" 120
[ "$(state_of "$coll")" = COMPLETED ] || fail "collect: $(state_of "$coll")"
same_study "$b/study/data.json" "$work/one/data.json"
no_claims "$b/study"
echo "   task 1 CANCELLED and resubmitted (COMPLETED); task 0 requeued (Restarts=$(field "${job}_0" Restarts)), COMPLETED; data.json == one process; no claim left"

# --- C: a worker over its time limit ----------------------------------------------------------
step "C: worker 1 hangs holding a claim and runs past --time=1"
c=$work/c
fresh "$c"
export EDGEQ_DATA=$c
job=$(sbatch --parsable --array=0-1 --cpus-per-task=1 --time=1 --output="$c/logs/%x-%A_%a.out" \
  "$root/deploy/slurm/study.sbatch")
deadline=$((SECONDS + 60))
stopped=""
while [ -z "$stopped" ]; do
  [ $SECONDS -lt $deadline ] || fail "worker 1 never held a claim"
  pid=$(worker_pid "$c" 1)
  if [ -n "$pid" ]; then
    if kill -STOP "$pid" 2> /dev/null; then
      if holds_claim "$c" 1; then stopped=$pid; else kill -CONT "$pid" 2> /dev/null || true; fi
    fi
  fi
  [ -n "$stopped" ] || sleep 0.02
done
held=$(grep -lx '1/2' "$c"/study/cache/claims/*.claim | head -n 1)
echo "   worker 1 (pid $stopped) stopped holding $(basename "$held")"
wait_jobs "${job}_0" 60
[ "$(state_of "${job}_0")" = COMPLETED ] || fail "task 0: $(state_of "${job}_0")"
[ "$(head -n 1 "$held" 2> /dev/null || echo released)" != "1/2" ] ||
  fail "worker 0 finished but $(basename "$held") is still worker 1's"
wait_jobs "${job}_1" 150
[ "$(state_of "${job}_1")" = TIMEOUT ] || fail "task 1: $(state_of "${job}_1"), expected TIMEOUT"
deadline=$((SECONDS + 30))  # SIGTERM, then SIGKILL after KillWait (5 s)
while kill -0 "$stopped" 2> /dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the timed-out worker (pid $stopped) still runs"
  sleep 0.2
done
coll=$(sbatch --parsable --output="$c/logs/%x-%j.out" "$root/deploy/slurm/collect.sbatch")
wait_jobs "$coll" 120
[ "$(state_of "$coll")" = COMPLETED ] || fail "collect: $(state_of "$coll")"
same_study "$c/study/data.json" "$work/one/data.json"
no_claims "$c/study"
echo "   task 0 took the claim over and COMPLETED; task 1 TIMEOUT; data.json == one process; no claim left"
step "all checks passed"
