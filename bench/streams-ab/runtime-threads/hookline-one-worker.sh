#!/bin/sh
# Arm `w` of cpu-4500-hookline-only.txt: installed as /tmp/bin-w/hookline (beside
# bench-load and bench-sink copied from the head's build), it runs the head's
# hookline (in /tmp/bin-h) with one tokio worker; the load generator and the sink
# keep their defaults.
TOKIO_WORKER_THREADS=1 exec /tmp/bin-h/hookline "$@"
