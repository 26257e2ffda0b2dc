# Shared by bench/native.sh and bench/app.sh (sourced): where each benchmark shape's file lives
# (target/bench/) and how it is made, once. Needs target/release/gen-awtl (GEN_AWTL names
# another build of it), SIZE_MB (the size of the `long` shape) and SCALE (divides the run or step
# counts of the gen-awtl shapes).
#   long      long runs (the original shape), SIZE_MB megabytes          (gen-awtl --shape long)
#   short     10,000 runs of ~35 steps                                     (gen-awtl --shape short)
#   one-step  100,000 one-step runs                                        (gen-awtl --shape one-step)
#   huge-run  one run of 1,000,000 steps                                   (gen-awtl --shape huge-run)
#   py-interleaved  10,000 short runs, lines interleaved, by bench/other_shapes.py
#   py-one-line     100,000 one-line runs, by bench/other_shapes.py
#   fixtures        the repo's real AWTL fixtures concatenated 2,000 times (bench/other_shapes.py)
#   claude-code     the repo's real Claude Code transcripts, 500 copies, sessions made distinct
#   codex           the repo's real Codex rollouts, 500 copies: one long session (~21,000 steps)
#   trajerrbench    the repo's real TRAJERRBENCH records, 3,000 copies: one whole run a line
#   trajerrbench-ascii  the same written as json.dumps does by default (non-ASCII as \u escapes)
#   chat            4,000 chat records (OpenAI messages with tool calls, some ShareGPT), by bench/other_shapes.py
#   openai-agents   1,500 OpenAI Agents SDK traces of span exports in end order, by bench/other_shapes.py
#   smolagents      a smolagents step callback's log of 7,000 CodeAgent runs (~50 MB), by bench/other_shapes.py
#   swe-doc         one SWE-agent .traj document of 5,760 turns on one line (~49 MB); swe-doc-pretty
#                   the same pretty-printed; openhands-doc an OpenHands event list (~54 MB);
#                   inspect-doc an Inspect log of 981 samples (~50 MB); tau2-doc a tau2 results
#                   file of 2,991 simulations (~61 MB)
#   1gb       long runs, 1,000 MB
shape_file() {
  local scale="${SCALE:-1}" suffix=""
  [ "$scale" = 1 ] || suffix="-div$scale"
  case "$1" in
    long) echo "target/bench/awtl-${SIZE_MB}mb.jsonl" ;;
    1gb) echo "target/bench/awtl-1000mb.jsonl" ;;
    short|one-step|huge-run) echo "target/bench/$1$suffix.jsonl" ;;
    swe-doc|swe-doc-pretty) echo "target/bench/$1.traj" ;;
    openhands-doc|inspect-doc|tau2-doc) echo "target/bench/$1.json" ;;
    *) echo "target/bench/$1.jsonl" ;;
  esac
}
make_shape() {
  local f; f="$(shape_file "$1")"
  mkdir -p target/bench
  [ -s "$f" ] && return
  case "$1" in
    long) ${GEN_AWTL:-target/release/gen-awtl} "$f" "$SIZE_MB" ;;
    1gb) ${GEN_AWTL:-target/release/gen-awtl} "$f" 1000 ;;
    short|one-step|huge-run) ${GEN_AWTL:-target/release/gen-awtl} --shape "$1" --scale "${SCALE:-1}" "$f" 0 ;;
    py-interleaved) python3 bench/other_shapes.py interleaved "$f" ;;
    py-one-line) python3 bench/other_shapes.py one-line "$f" ;;
    fixtures) python3 bench/other_shapes.py fixtures "$f" ;;
    claude-code) python3 bench/other_shapes.py claude-code "$f" ;;
    codex) python3 bench/other_shapes.py codex "$f" ;;
    trajerrbench|trajerrbench-ascii) python3 bench/other_shapes.py "$1" "$f" ;;
    chat|openai-agents|smolagents|calls-batch|calls-interleaved|swe-doc|swe-doc-pretty|openhands-doc|inspect-doc|tau2-doc) python3 bench/other_shapes.py "$1" "$f" ;;
    *) echo "unknown shape $1" >&2; return 2 ;;
  esac
}
