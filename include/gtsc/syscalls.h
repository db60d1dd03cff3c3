/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libgtsc: part of the public API.  Include <gtsc/gtsc.h>, which includes
 * this file; it is a separate file only to keep gtsc.h readable.
 */
#ifndef __GTSC_PUBLIC_SYSCALLS_H
#define __GTSC_PUBLIC_SYSCALLS_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
