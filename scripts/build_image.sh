#!/usr/bin/env bash
# Builds the container image (deploy/Dockerfile) with podman from a local Debian base, without an
# image registry (issue 50), and runs it: `edgeq --version` and one `calibrate --shard` inside it.
# Not run by CI: it downloads the base system and the build's packages from the Debian mirror this
# machine's apt uses (a few hundred MB) and builds edgeq from scratch inside the image.
#   1. `debootstrap --variant=minbase bookworm` into a temporary folder (the mirror: the first
#      URIs of /etc/apt/sources.list.d/debian.sources or sources.list; EDGEQ_DEBIAN_MIRROR wins)
#   2. imported into podman as docker.io/library/debian:bookworm (the Dockerfile's FROM; never
#      pulled: --pull=never)
#   3. `podman build --isolation=chroot -f deploy/Dockerfile -t localhost/edgeq:latest .` (host
#      network: the Dockerfile's apt-get reaches the same mirror; chroot isolation: no OCI runtime,
#      which some sandboxes refuse, see below)
#   4. `podman run localhost/edgeq --version` (where podman's OCI runtime cannot start a container,
#      e.g. crun refusing hybrid cgroups or its setrlimit calls, the same through `buildah run
#      --isolation chroot`); the zoo model at imgsz 64 and the 4 coco8-pose
#      training photos in a scratch folder mounted at /data, `edgeq calibrate --shard 0/2` inside
#      the image; with build/edgeq here, the same shard on the host, compared byte for byte.
# Needs root (debootstrap); installs podman and debootstrap when missing. Leaves the two images
# (podman rmi localhost/edgeq:latest docker.io/library/debian:bookworm removes them).
#   scripts/build_image.sh [--run-only]   (--run-only: step 4 alone, on the image built before)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "build_image: error: needs root (debootstrap)" >&2; exit 1; }
missing=()
for p in podman debootstrap; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" > /dev/null
fi
mirror=${EDGEQ_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2> /dev/null |
    grep -v security | head -n 1 || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\?\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2> /dev/null |
    grep -v security | head -n 1 || true)
fi
[ -n "$mirror" ] || { echo "build_image: error: no Debian mirror found; set EDGEQ_DEBIAN_MIRROR" >&2; exit 1; }
work=$(mktemp -d /var/tmp/edgeq-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
if [ "${1:-}" != --run-only ]; then
  echo "== debootstrap bookworm (minbase) from the apt mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
  echo "== podman import -> docker.io/library/debian:bookworm ($((SECONDS - t0)) s)"
  tar -C "$work/rootfs" -c . | podman import - docker.io/library/debian:bookworm > /dev/null
  rm -rf "$work/rootfs"
  echo "== podman build -f deploy/Dockerfile -t localhost/edgeq:latest ."
  podman build --pull=never --network=host --isolation=chroot -f deploy/Dockerfile \
    -t localhost/edgeq:latest .
  echo "== built in $((SECONDS - t0)) s"
fi
echo "== running the image"
data=$work/data
mkdir -p "$data/calib"
cp data/coco8-pose/images/train/*.jpg "$data/calib/"
if podman run --rm --network=none localhost/edgeq:latest --version 2> "$work/run.err"; then
  run=(podman run --rm --network=none -v "$data:/data" localhost/edgeq:latest)
else
  echo "== podman run failed ($(tail -n 1 "$work/run.err")); running it with buildah run --isolation chroot"
  ctr=$(buildah from --pull-never localhost/edgeq:latest)
  trap 'buildah rm "$ctr" > /dev/null; rm -rf "$work"' EXIT
  run=(buildah run --isolation chroot --workingdir /data -v "$data:/data" "$ctr" -- edgeq)
  "${run[@]}" --version
fi
"${run[@]}" zoo yolo11n-pose -o /data/yolo11n-pose.onnx --imgsz 64
"${run[@]}" calibrate --model /data/yolo11n-pose.onnx --images /data/calib --n 1024 \
  --shard 0/2 --threads 1 --out /data/shard-0.cbor
ls -l "$data/shard-0.cbor"
if [ -x build/edgeq ]; then
  build/edgeq calibrate --model "$data/yolo11n-pose.onnx" --images "$data/calib" --n 1024 \
    --shard 0/2 --threads 1 --out "$data/host-shard-0.cbor" > /dev/null 2>&1
  if cmp -s "$data/shard-0.cbor" "$data/host-shard-0.cbor"; then
    echo "== the image's shard equals build/edgeq's byte for byte"
  else
    echo "== the image's shard differs from build/edgeq's (a different build of edgeq)"
  fi
fi
echo "== done in $((SECONDS - t0)) s"
