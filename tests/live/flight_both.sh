# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sourced by the flight tests after lib.sh.  FLIGHT_IMPL is the flight
# channels this run records into: native (BPF_F_RB_OVERWRITE rings, where
# `features` says ringbuf_overwrite=yes) or emulated (the slot arrays).  On
# a native kernel the script first runs itself again with
# GTSC_FEATURES_OFF=ringbuf_overwrite, its results renamed
# live/NAME-emulated/..., so that both implementations pass the same checks.
if "$GTSC" features 2> /dev/null | grep -q '^ringbuf_overwrite=yes'; then
	FLIGHT_IMPL=native
else
	FLIGHT_IMPL=emulated
fi
if [ $FLIGHT_IMPL = native ] && [ -z "${GTSC_FEATURES_OFF:-}" ]; then
	GTSC_FEATURES_OFF=ringbuf_overwrite bash "$0" "$@" 2>&1 |
		sed -E 's#^(PASS|FAIL|SKIP) live/([^/:]*)/#\1 live/\2-emulated/#'
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || echo "FAIL live/$(basename "$0" .sh)-emulated: exited $rc"
fi
echo "# flight channels: $FLIGHT_IMPL"
