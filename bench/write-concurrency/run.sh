#!/usr/bin/env bash
# Critical events (redis store, one handler answering at once) at RATE
# requests/s open loop over 64 connections for 20 s, with the receivers'
# record statements one at a time (`store.write_concurrency = 1`, the
# default) and two at a time, alternating per round; two passes per
# setting and round, a fresh node and store each, one build (BIN).
#   RATE=7000 BIN=dir bench/write-concurrency/run.sh ROUNDS OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:?rounds}; out=${2:?out}; mkdir -p "$out"
for r in $(seq "$rounds"); do
  for wc in 1 2; do
    STORE_EXTRA="write_concurrency = $wc" STORE=redis CRITICAL=yes RATE=${RATE:?RATE} \
      BASE=${BIN:?BIN} NEW=$BIN bench/streams-ab/one-script/closed.sh 1 "$out/wc$wc-r$r"
  done
done
