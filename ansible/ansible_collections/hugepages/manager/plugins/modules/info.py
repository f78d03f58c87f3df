#!/usr/bin/python
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: GPL-3.0-or-later

# -*- coding: utf-8 -*-
# Copyright: hugepagesd developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: info
short_description: Read the pools, nodes, mounts, claims, drift and findings of hugepagesd
version_added: "1.0.0"
description:
  - Returns what C(hugepagesctl status), C(claims), C(mounts), C(config) and C(explain)
    report with C(--json). Changes nothing.
options: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
attributes:
  diff_mode:
    support: none
'''

EXAMPLES = r'''
- name: Read the huge page state
  hugepages.manager.info:
  register: hp

- name: Fail on drift
  ansible.builtin.assert:
    that: hp.drift | length == 0

- name: Fail when the last change of a pool fell short
  ansible.builtin.assert:
    that: hp.pools | rejectattr('last_allocation', 'none')
                   | selectattr('last_allocation.shortfall', 'gt', 0) | list | length == 0
'''

RETURN = r'''
service_version:
  description: hugepagesd's version.
  returned: always
  type: str
  sample: "1.0"
pools:
  description:
    - Every pool, as in C(hugepagesctl status --json), with the kernel's counters, C(base) (the
      administrator's base) and C(target) (the base plus every claim, which hugepagesd keeps;
      C(minimum) below it is a shortfall); per node C(nodes) (C(node), the counters, and
      C(target), the node's configured pages plus the claims on it).
    - C(last_allocation) is the service's last change of the pool (null before the first since
      boot) with C(requested), C(achieved) and C(shortfall) pages, C(duration_usec),
      C(ended_usec) (Unix time in microseconds), C(mode), C(writes) and C(node) for one node.
  returned: always
  type: list
  elements: dict
  sample: [{"name": "2MB", "page_size": 2097152, "minimum": 512, "total": 512, "free": 512,
            "last_allocation": {"requested": 512, "achieved": 500, "shortfall": 12,
                                "duration_usec": 10512, "ended_usec": 1796400000000000,
                                "mode": "plain", "writes": 1}}]
nodes:
  description: The NUMA node numbers.
  returned: always
  type: list
  elements: int
  sample: [0, 1]
mounts:
  description: The hugetlbfs mounts, as in C(hugepagesctl mounts --json).
  returned: always
  type: list
  elements: dict
  sample: [{"path": "/var/lib/hugetlbfs/pagesize-2MB", "page_size": 2097152}]
claims:
  description: The claims, as in C(hugepagesctl claims --json).
  returned: always
  type: list
  elements: dict
  sample: [{"consumer": "postgresql", "page_size": 2097152, "pages": 4096, "node": null}]
settings:
  description: The saved configuration, as key, value and origin.
  returned: always
  type: list
  elements: dict
  sample: [{"key": "pool 2MB minimum", "value": "512", "origin": "/etc/hugepagesd/hugepagesd.conf:3"}]
drift:
  description: Where the kernel differs from the configuration.
  returned: always
  type: list
  elements: dict
  sample: [{"key": "pool 2MB minimum", "configured": "512", "actual": "500", "message": "..."}]
explain:
  description: The findings of C(hugepagesctl explain), with severity, id, message and fix.
  returned: always
  type: list
  elements: dict
  sample: [{"severity": "warning", "id": "pool-short-2MB", "message": "...", "fix": "..."}]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, fail)


def main():
    module = AnsibleModule(argument_spec=dict(**COMMON_ARGS), supports_check_mode=True)
    try:
        ctl = Hugepagesctl(module)
        status = ctl.status()
        config = ctl.read('config')
        module.exit_json(
            changed=False,
            service_version=status['service_version'],
            pools=status['pools'],
            nodes=status['numa_nodes'],
            mounts=ctl.read('mounts')['mounts'],
            claims=ctl.claims(),
            settings=config['settings'],
            drift=config['drift'],
            explain=ctl.read('explain')['entries'])
    except HugepagesError as e:
        fail(module, e)


if __name__ == '__main__':
    main()
