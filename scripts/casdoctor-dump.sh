#!/bin/sh
# casdoctor-dump.sh: writes what `casdoctor --from DIR` reads, for when casdoctor cannot run where the cluster is.
# Needs only kubectl (the cluster's context) and aws (the cluster's account and region); reads, never writes, and
# prints no Secret: of the ConfigMaps it reads only CA's status and priority-expander ones.
#
#   scripts/casdoctor-dump.sh [-o DIR] [--context CTX] [--region REGION] [--profile PROFILE]
#                             [--ca-namespace NS] [--ca-deployment NAME] [--since 1h]
#
# Then, anywhere: casdoctor why-pending -A --from DIR (the dump's own time is the report's clock).
set -eu

out=casdoctor-dump
context=
region=
profile=
ca_ns=kube-system
ca_deploy=cluster-autoscaler
since=1h

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    -o) out=${2:?-o needs a directory}; shift 2 ;;
    --context) context=${2:?--context needs a value}; shift 2 ;;
    --region) region=${2:?--region needs a value}; shift 2 ;;
    --profile) profile=${2:?--profile needs a value}; shift 2 ;;
    --ca-namespace) ca_ns=${2:?--ca-namespace needs a value}; shift 2 ;;
    --ca-deployment) ca_deploy=${2:?--ca-deployment needs a value}; shift 2 ;;
    --since) since=${2:?--since needs a duration such as 1h}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "casdoctor-dump.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "casdoctor-dump.sh: $out exists and is not empty: choose another directory with -o" >&2
  exit 2
fi
mkdir -p "$out"

k() { kubectl ${context:+--context "$context"} "$@"; }
a() { aws ${region:+--region "$region"} ${profile:+--profile "$profile"} "$@"; }
warn() { echo "casdoctor-dump.sh: warning: $*" >&2; }
# a file name from a foreign name (an ASG may be named with any character)
safe() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }

taken=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# --- Kubernetes: the lists every command reads (required), then what only some clusters have (optional)
for r in pods nodes events poddisruptionbudgets persistentvolumeclaims persistentvolumes storageclasses \
         replicasets deployments statefulsets daemonsets jobs priorityclasses; do
  k get "$r" -A -o json > "$out/$r.json"
done
k get configmap -n "$ca_ns" cluster-autoscaler-status cluster-autoscaler-priority-expander \
  --ignore-not-found -o json > "$out/configmaps-$(safe "$ca_ns").json"
for r in provisioningrequests.autoscaling.x-k8s.io capacitybuffers.autoscaling.x-k8s.io podtemplates \
         nodepools.karpenter.sh nodeclaims.karpenter.sh ec2nodeclasses.karpenter.k8s.aws; do
  f="$out/$(safe "${r%%.*}").json"
  if ! k get "$r" -A -o json > "$f" 2> "$f.err"; then
    warn "$r not read ($(head -n 1 "$f.err")); skipped"
    rm -f "$f"
  fi
  rm -f "$f.err"
done
if ! k -n "$ca_ns" logs "deploy/$ca_deploy" --since="$since" > "$out/cluster-autoscaler.log" 2> "$out/log.err"; then
  warn "CA's log not read ($(head -n 1 "$out/log.err")); the log checks will say so"
  rm -f "$out/cluster-autoscaler.log"
fi
rm -f "$out/log.err"

# --- AWS: the Auto Scaling groups, each one's launch template (by id and the version it uses) and recent activities
a autoscaling describe-auto-scaling-groups --output json > "$out/asgs.json"
a autoscaling describe-auto-scaling-groups --output text \
  --query 'AutoScalingGroups[].[AutoScalingGroupName]' > "$out/.asg-names"
a autoscaling describe-auto-scaling-groups --output text \
  --query 'AutoScalingGroups[].[LaunchTemplate.LaunchTemplateId, LaunchTemplate.Version, MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification.LaunchTemplateId, MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification.Version, LaunchConfigurationName]' \
  > "$out/.asg-templates"

: > "$out/.lt-done"
lt() {
  # a launch template without a version in the ASG means its default version
  [ "$1" = None ] && return 0
  v=$2
  [ "$v" = None ] && v='$Default'
  key="$1 $v"
  grep -qxF -- "$key" "$out/.lt-done" && return 0
  printf '%s\n' "$key" >> "$out/.lt-done"
  a ec2 describe-launch-template-versions --launch-template-id "$1" --versions "$v" --output json \
    > "$out/launch-template-$(safe "$1")-$(safe "$v").json"
}
lcs=
while IFS="$(printf '\t')" read -r id ver mid mver lc; do
  lt "$id" "$ver"
  lt "$mid" "$mver"
  if [ -n "$lc" ] && [ "$lc" != None ]; then lcs="$lcs $lc"; fi
done < "$out/.asg-templates"
if [ -n "$lcs" ]; then
  # shellcheck disable=SC2086 # launch configuration names have no spaces
  a autoscaling describe-launch-configurations --launch-configuration-names $lcs --output json > "$out/launch-configurations.json"
fi
while IFS= read -r name; do
  [ -n "$name" ] || continue
  a autoscaling describe-scaling-activities --auto-scaling-group-name "$name" --max-items 100 --output json \
    > "$out/activities-$(safe "$name").json"
done < "$out/.asg-names"

# --- the instance types the groups use (aws-cli prints one "InstanceType": "..." a line), 50 a call
types=$(sed -n 's/^ *"InstanceType": "\([A-Za-z0-9.-]*\)",\{0,1\}$/\1/p' "$out/asgs.json" "$out"/launch-template-*.json 2>/dev/null | sort -u)
n=0
batch=
count=0
for t in $types; do
  batch="$batch $t"
  count=$((count + 1))
  if [ "$count" -eq 50 ]; then
    n=$((n + 1))
    # shellcheck disable=SC2086 # instance type names have no spaces
    a ec2 describe-instance-types --instance-types $batch --output json > "$out/instance-types-$n.json"
    batch=
    count=0
  fi
done
if [ -n "$batch" ]; then
  n=$((n + 1))
  # shellcheck disable=SC2086
  a ec2 describe-instance-types --instance-types $batch --output json > "$out/instance-types-$n.json"
fi
rm -f "$out/.asg-names" "$out/.asg-templates" "$out/.lt-done"

# --- Karpenter's spot prices in effect now (casdoctor why-this-type), only when it has NodeClaims
if [ -s "$out/nodeclaims.json" ]; then
  if ! a ec2 describe-spot-price-history --start-time "$taken" \
      --product-descriptions Linux/UNIX 'Linux/UNIX (Amazon VPC)' --output json > "$out/spot-prices.json" 2> "$out/spot.err"; then
    warn "spot prices not read ($(head -n 1 "$out/spot.err")); why-this-type will say so"
    rm -f "$out/spot-prices.json"
  fi
  rm -f "$out/spot.err"
fi

cat > "$out/README.md" <<EOF
# casdoctor dump

Taken $taken by casdoctor dump script (scripts/casdoctor-dump.sh), CA in $ca_ns/$ca_deploy, log since $since.
Read it with \`casdoctor why-pending -A --from <this directory>\`: the dump's own time is the report's clock.
EOF
echo "casdoctor-dump.sh: wrote $out (taken $taken); read it with: casdoctor why-pending -A --from $out" >&2
