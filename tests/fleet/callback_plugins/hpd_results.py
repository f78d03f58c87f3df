# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""An aggregate callback for the fleet tier: every task result of a run
(diff included, which the stdout callbacks leave out below -vvv), in order,
written as a JSON list to $HPD_RESULTS when the playbook ends."""

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'hpd_results'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.results = []

    def _add(self, result, status):
        record = dict(result._result)
        record['task'] = result._task.get_name()
        record['status'] = status
        record['failed'] = status != 'ok'
        self.results.append(record)

    def v2_runner_on_ok(self, result):
        self._add(result, 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._add(result, 'failed')

    def v2_runner_on_unreachable(self, result):
        self._add(result, 'unreachable')

    def v2_playbook_on_stats(self, stats):
        with open(os.environ['HPD_RESULTS'], 'w') as f:
            json.dump(self.results, f, default=str)
