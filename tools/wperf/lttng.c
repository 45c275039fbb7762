/*
 * tools/wperf/lttng.c — LTTng's session daemon through liblttng-ctl
 * (lttng.h).
 */
#include "lttng.h"

#include <lttng/lttng.h>
#include <stdlib.h>
#include <string.h>

int wperf_lttng_destroy_session(const char *name)
{
	struct lttng_destruction_handle *handle = NULL;
	enum lttng_error_code ret = lttng_destroy_session_ext(name, &handle);

	if (ret != LTTNG_OK)
		return -(int)ret;
	/* As `lttng destroy`: until the session daemon has written it out. */
	if (lttng_destruction_handle_wait_for_completion(handle, -1) ==
	    LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED &&
	    lttng_destruction_handle_get_result(handle, &ret) ==
	    LTTNG_DESTRUCTION_HANDLE_STATUS_OK && ret != LTTNG_OK) {
		lttng_destruction_handle_destroy(handle);
		return -(int)ret;
	}
	lttng_destruction_handle_destroy(handle);
	return 0;
}

int wperf_lttng_remove_trigger(const char *name)
{
	struct lttng_triggers *triggers = NULL;
	unsigned int count = 0;
	enum lttng_error_code ret = lttng_list_triggers(&triggers);
	int rc = 0;

	if (ret != LTTNG_OK)
		return -(int)ret;
	if (lttng_triggers_get_count(triggers, &count) != LTTNG_TRIGGER_STATUS_OK)
		count = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(triggers, i);
		const char *tname = NULL;

		if (t && lttng_trigger_get_name(t, &tname) == LTTNG_TRIGGER_STATUS_OK &&
		    tname && !strcmp(tname, name)) {
			rc = lttng_unregister_trigger(t);
			break;
		}
	}
	lttng_triggers_destroy(triggers);
	return rc < 0 ? rc : 0;
}

int wperf_lttng_session_count(void)
{
	struct lttng_session *sessions = NULL;
	int n = lttng_list_sessions(&sessions);

	free(sessions);
	return n;
}
