#!/usr/bin/env bash
# Validates the Kubernetes Jobs in deploy/k8s against the Job schema of Kubernetes' published
# OpenAPI definitions, without a cluster (issue 50). `kubectl apply --dry-run=client` and
# `kubectl create --dry-run=client` both fetch the schema from an API server ("failed to download
# openapi ... connection refused" here), so this uses the npm package kubernetes-models (its
# batch/v1 Job validator is generated from that OpenAPI schema: types, required fields, enums,
# formats; like Kubernetes' own schema it lets unknown fields through). Not run by CI: it installs
# the package from the npm registry into a temporary folder. Needs node, npm and python3-yaml.
#   scripts/validate_k8s.sh [FILE.yaml ...]   (default: deploy/k8s/*.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(deploy/k8s/*.yaml)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm install --no-audit --no-fund --loglevel=error kubernetes-models@5.1.0 > /dev/null)
mkdir "$work/jobs"
for f in "${files[@]}"; do
  python3 -c 'import json, sys, yaml; json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)' \
    "$f" > "$work/jobs/$(basename "$f").json"
done
cat > "$work/validate.mjs" << 'EOF'
import fs from "node:fs";
import { Job } from "kubernetes-models/batch/v1/Job";
let bad = 0;
for (const f of process.argv.slice(2)) {
  for (const doc of JSON.parse(fs.readFileSync(f, "utf8"))) {
    const name = `${f.replace(/.*\//, "").replace(/\.json$/, "")}: ${doc.kind} ${doc.metadata?.name}`;
    try {
      if (doc.apiVersion !== "batch/v1" || doc.kind !== "Job") throw new Error("not a batch/v1 Job");
      new Job(doc).validate();
      console.log(`${name}: valid`);
    } catch (e) {
      ++bad;
      console.log(`${name}: INVALID: ${e.message}`);
    }
  }
}
process.exit(bad ? 1 : 0);
EOF
(cd "$work" && node validate.mjs jobs/*.json)
