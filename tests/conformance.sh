#!/bin/sh
# Runs the wire-contract checks against the built binary, when the contract's script is beside
# the repository (../shared/conformance). Exit 77 (skipped, said so) when it is not.
conf="$READERD_SOURCE_ROOT/../shared/conformance/readerd-conformance"
if [ ! -x "$conf" ]; then
  echo "SKIP: no conformance script at $conf"
  exit 77
fi
exec python3 "$conf" --readerd "$READERD" --only "${READERD_CONFORMANCE_SECTIONS:-core,pdf,images}"
