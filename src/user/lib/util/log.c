// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "log.h"

void gt_vlog(gtsc_log_fn fn, void *ctx, enum gtsc_log_level level, const char *fmt, va_list ap)
{
	char msg[512];

	if (!fn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fn(ctx, level, msg);
}

void gt_log(gtsc_log_fn fn, void *ctx, enum gtsc_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gt_vlog(fn, ctx, level, fmt, ap);
	va_end(ap);
}
