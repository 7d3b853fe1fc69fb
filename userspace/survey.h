/* SPDX-License-Identifier: GPL-2.0-only */
/* flagsfirst survey: probes of the running kernel's own system calls. */
#ifndef FLAGSFIRST_SURVEY_H
#define FLAGSFIRST_SURVEY_H

int cmd_survey(int argc, char **argv);

#endif /* FLAGSFIRST_SURVEY_H */
