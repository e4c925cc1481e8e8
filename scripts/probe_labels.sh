#!/usr/bin/env bash
# Image-level probe labels from YOLO label files: the number of objects per image, bucketed
# (0, 1, 2, 3+ by default), as the CSV `edgeq probe --labels` and `edgeq study --probe-labels` read.
#   ./scripts/probe_labels.sh IMAGES_DIR [LABELS_DIR=labels/ beside images/] > labels.csv
set -euo pipefail
IMAGES=${1:?usage: probe_labels.sh IMAGES_DIR [LABELS_DIR]}
LABELS=${2:-${IMAGES%/}}
[ -n "${2:-}" ] || LABELS=$(echo "${IMAGES%/}" | sed 's#/images\(/\|$\)#/labels\1#')
echo "image,label"
find "$IMAGES" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) | sort |
while read -r img; do
  rel=${img#"${IMAGES%/}"/}
  txt="$LABELS/${rel%.*}.txt"
  n=0
  [ -f "$txt" ] && n=$(grep -c . "$txt" || true)
  if [ "$n" -ge 3 ]; then b="3+"; else b="$n"; fi
  echo "$rel,$b"
done
