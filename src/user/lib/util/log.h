/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One sentence to a gtsc_log_fn (gtsc/gtsc.h), printf-style; nothing when FN is NULL. */
#ifndef __GTSC_LOG_H
#define __GTSC_LOG_H

#include <stdarg.h>
#include "gtsc/gtsc.h"

__attribute__((format(printf, 4, 0))) void gt_vlog(gtsc_log_fn fn, void *ctx,
						   enum gtsc_log_level level, const char *fmt,
						   va_list ap);
__attribute__((format(printf, 4, 5))) void gt_log(gtsc_log_fn fn, void *ctx,
						  enum gtsc_log_level level, const char *fmt,
						  ...);

#endif
