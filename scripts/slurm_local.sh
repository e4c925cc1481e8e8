#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for the scheduler tests (tests/slurm/run.sh) and
# scripts/bench_slurm.sh (issue 50).
#   scripts/slurm_local.sh up DIR     installs Debian's slurmctld, slurmd, slurm-client and munge
#                                     when missing, writes DIR/slurm.conf for this host (its CPUs
#                                     and memory from `slurmd -C`, one partition, cons_tres with
#                                     CR_Core_Memory so array tasks share the node), starts munged,
#                                     slurmctld and slurmd as root, waits until the node is idle
#   scripts/slurm_local.sh down DIR   cancels the cluster's jobs, stops its daemons, removes DIR
#   scripts/slurm_local.sh env DIR    prints the line clients need: export SLURM_CONF=DIR/slurm.conf
# DIR: an empty or absent folder (a private temporary folder); everything the cluster writes (key,
# sockets, state, spool, logs, pid files) stays in it. Ports: EDGEQ_SLURM_PORT (slurmctld, 6817
# by default) and the next one (slurmd). Needs root (the daemons run as root); exits non-zero
# with the reason when anything cannot start.
set -euo pipefail

die() {
  echo "slurm_local: error: $*" >&2
  exit 1
}

[ $# -eq 2 ] || die "usage: $0 up|down|env DIR"
cmd=$1
dir=$2
case "$dir" in /*) ;; *) dir=$PWD/$dir ;; esac
conf=$dir/slurm.conf
# Every process the cluster starts carries this in its environment: `down` stops exactly those.
marker="EDGEQ_SLURM_DIR=$dir"

# The processes started by `up DIR` (munged, slurmctld, slurmd, slurmstepd): their environment
# names DIR. Job processes are not among them (they get the submitter's environment); `down`
# cancels the jobs through the scheduler first.
cluster_pids() {
  local e pid
  for e in /proc/[0-9]*/environ; do
    pid=${e#/proc/}
    pid=${pid%/environ}
    [ "$pid" != $$ ] || continue
    if { tr '\0' '\n' < "$e"; } 2> /dev/null | grep -qxF "$marker"; then echo "$pid"; fi
  done
}

down() {
  if [ -f "$conf" ] && [ -n "$(cluster_pids)" ]; then
    export SLURM_CONF=$conf
    # Jobs first, so that no job process outlives its slurmstepd.
    if squeue -h -o %i > /dev/null 2>&1; then
      scancel --user="$(id -un)" > /dev/null 2>&1 || true
      for _ in $(seq 75); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.2
      done
    fi
  fi
  local pids left
  pids=$(cluster_pids | tr '\n' ' ')
  if [ -n "${pids// /}" ]; then
    # shellcheck disable=SC2086  # a list of process ids
    kill -TERM $pids 2> /dev/null || true
    for _ in $(seq 50); do
      left=$(cluster_pids | tr '\n' ' ')
      [ -z "${left// /}" ] && break
      sleep 0.2
    done
    left=$(cluster_pids | tr '\n' ' ')
    # shellcheck disable=SC2086
    [ -z "${left// /}" ] || kill -KILL $left 2> /dev/null || true
    sleep 0.2
    left=$(cluster_pids | tr '\n' ' ')
    [ -z "${left// /}" ] || die "processes of $dir still running: $left"
  fi
  rm -rf "$dir"
}

install_packages() {
  local missing=() p
  for p in slurmctld slurmd slurm-client munge; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "== slurm_local: installing Debian packages: ${missing[*]}"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    > /dev/null || die "apt-get install ${missing[*]} failed"
}

port_free() {
  ! ss -Hltn "sport = :$1" 2> /dev/null | grep -q .
}

log_tail() {
  local f
  for f in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
  done >&2
  true
}

fail_up() {
  echo "slurm_local: error: $*" >&2
  log_tail
  down || true
  exit 1
}

up() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (munged, slurmctld and slurmd run as root here); \
this user is $(id -un)"
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then die "$dir exists and is not empty"; fi
  install_packages
  local port=${EDGEQ_SLURM_PORT:-6817}
  port_free "$port" || die "port $port (slurmctld) is in use: another Slurm? set EDGEQ_SLURM_PORT"
  port_free $((port + 1)) || die "port $((port + 1)) (slurmd) is in use: set EDGEQ_SLURM_PORT"
  mkdir -p "$dir"/state "$dir"/spool
  chmod 700 "$dir"
  local node host
  host=$(hostname -s)
  # `slurmd -C`: NodeName=HOST CPUs=.. Boards=.. SocketsPerBoard=.. CoresPerSocket=..
  # ThreadsPerCore=.. RealMemory=..
  node=$(slurmd -C | head -n 1) || die "slurmd -C failed"
  case "$node" in "NodeName=$host "*) ;; *) die "unexpected slurmd -C output: $node" ;; esac
  cat > "$conf" << EOF
# A one-node cluster for edgeq's scheduler tests (scripts/slurm_local.sh); removed by \`down\`.
ClusterName=edgeq
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job waits this long before it starts again (120 s by default).
AuthInfo=socket=$dir/munge.sock,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# Finished jobs stay visible to scontrol for 10 minutes; a cancelled or timed-out job's processes
# get SIGTERM, then SIGKILL 5 s later.
MinJobAge=600
KillWait=5
$node State=UNKNOWN NodeAddr=127.0.0.1
PartitionName=edgeq Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  : > "$dir"/plugstack.conf
  # munge: its own key, socket and files in DIR (-f: munged refuses root without it).
  dd if=/dev/urandom of="$dir"/munge.key bs=1024 count=1 status=none
  chmod 400 "$dir"/munge.key
  env "$marker" munged -f --key-file="$dir"/munge.key --socket="$dir"/munge.sock \
    --pid-file="$dir"/munged.pid --log-file="$dir"/munged.log --seed-file="$dir"/munged.seed \
    || fail_up "munged did not start"
  export SLURM_CONF=$conf
  env "$marker" slurmctld -f "$conf" || fail_up "slurmctld did not start"
  env "$marker" slurmd -f "$conf" || fail_up "slurmd did not start"
  local state="" i timeout=${EDGEQ_SLURM_TIMEOUT:-60}
  for ((i = 0; i < timeout * 5; ++i)); do
    state=$(sinfo -h -N -n "$host" -o %t 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  [ "$state" = idle ] || fail_up "node $host not idle after ${timeout} s (sinfo: '${state:-no answer}')"
  echo "== slurm_local: one-node cluster up in $dir: $node; SLURM_CONF=$conf"
}

case "$cmd" in
  up) up ;;
  down) down ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) die "usage: $0 up|down|env DIR" ;;
esac
