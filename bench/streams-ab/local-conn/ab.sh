#!/usr/bin/env bash
# Alternating A/B of hookline's CPU per request (bench/lib/cpu_per_request.sh)
# on the streams path: BASE and NEW are directories holding hookline,
# bench-load and bench-sink (release builds of the head without and with the
# change).   BASE=dir NEW=dir ab.sh RATE ROUNDS OUTDIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
rate=$1; rounds=$2; out=$3
for r in $(seq "$rounds"); do
  OUT=$out bench/lib/cpu_per_request.sh "${BASE:?}" "base-$rate-$r" "$rate"
  OUT=$out bench/lib/cpu_per_request.sh "${NEW:?}" "new-$rate-$r" "$rate"
done
