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
module: claim
short_description: Claim huge pages for a consumer, or release its claim
version_added: "1.0.0"
description:
  - A claim names a consumer (a database, a VM, a DPDK application) and the pages it needs;
    hugepagesd keeps every pool at its base plus the sum of the claims on it.
  - When the kernel cannot hold the claimed pages the task fails with the figures, unless
    I(accept_shortfall) is true.
options:
  consumer:
    description: The consumer's name.
    type: str
    required: true
  page_size:
    description: The huge page size (bytes, C(2M), C(1G)).
    type: str
    required: true
  pages:
    description:
      - Pages claimed, or memory that is a whole number of pages (C(8G)). Required with
        I(state=present); relative amounts are refused.
    type: raw
  node:
    description: Claim on this NUMA node only; without it the claim is on the whole pool.
    type: int
  state:
    description: Whether the claim should exist.
    type: str
    choices: [present, absent]
    default: present
  persist:
    description: Keep the claim across reboots. A claim in force but not kept counts as a change.
    type: bool
    default: false
  accept_shortfall:
    description: Report a claim the kernel could not hold as a warning instead of failing.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
'''

EXAMPLES = r'''
- name: PostgreSQL's shared buffers in 2 MB pages
  hugepages.manager.claim:
    consumer: postgresql
    page_size: 2M
    pages: 8G
    persist: true

- name: Drop the claim of a retired VM
  hugepages.manager.claim:
    consumer: vm-build
    page_size: 1G
    state: absent
'''

RETURN = r'''
claim:
  description: The claim afterwards (in check mode, as planned); null when absent.
  returned: always
  type: dict
  sample: {"consumer": "postgresql", "page_size": 2097152, "pages": 4096, "node": null, "persisted": true}
commands:
  description: The hugepagesctl commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ["claim postgresql 2097152 4096 --persist"]
shortfall:
  description:
    - Whether the pool holds fewer pages than the claims ask, after this task's change or, when
      the claim was already in place, as the pool below hugepagesd's target (base plus claims).
  returned: always
  type: bool
  sample: false
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, fail, parse_pages, parse_size)


def find(ctl, consumer, size, node):
    for c in ctl.claims():
        if c['consumer'] == consumer and c['page_size'] == size and c['node'] == node:
            return dict((k, c[k]) for k in ('consumer', 'page_size', 'pages', 'node', 'persisted'))
    return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            consumer=dict(type='str', required=True),
            page_size=dict(type='str', required=True),
            pages=dict(type='raw'),
            node=dict(type='int'),
            state=dict(type='str', choices=['present', 'absent'], default='present'),
            persist=dict(type='bool', default=False),
            accept_shortfall=dict(type='bool', default=False),
            **COMMON_ARGS),
        required_if=[('state', 'present', ('pages',))],
        supports_check_mode=True,
    )
    p = module.params
    result = dict(changed=False, commands=[], shortfall=False, claim=None)
    try:
        ctl = Hugepagesctl(module)
        size = ctl.pool(parse_size(p['page_size']))['page_size']
        node_args = ['--node', p['node']] if p['node'] is not None else []
        before = find(ctl, p['consumer'], size, p['node'])
        command = None
        wanted = None
        if p['state'] == 'present':
            pages = parse_pages(p['pages'], size, 'pages')
            wanted = dict(consumer=p['consumer'], page_size=size, pages=pages, node=p['node'],
                          persisted=p['persist'] or bool(before and before['persisted']))
            if before is None or before['pages'] != pages or (p['persist'] and not before['persisted']):
                command = ['claim', p['consumer'], size, pages] + node_args + \
                    (['--persist'] if p['persist'] else [])
        elif before is not None:
            command = ['release', p['consumer'], size] + node_args
        result['changed'] = command is not None
        if command:
            result['commands'] = [' '.join(str(a) for a in command)]

        after = wanted
        if command and not module.check_mode:
            short, out, err = ctl.change(*command)
            result['shortfall'] = short
            after = find(ctl, p['consumer'], size, p['node'])
            if short:
                msg = ('the %d-byte pool cannot hold the claims: %s claimed %s pages; %s'
                       % (size, p['consumer'], wanted['pages'] if wanted else 0, err.strip()))
                result['claim'] = after
                if not p['accept_shortfall']:
                    module.fail_json(msg=msg, **result)
                module.warn(msg)
        elif not command:
            after = before
            # nothing to change, but a claim recorded earlier may still not
            # be held: the pool below hugepagesd's target (base plus claims)
            # is the same shortfall, reported the same way
            pool = ctl.pool(size)
            if p['state'] == 'present' and pool['minimum'] < pool['target']:
                result['shortfall'] = True
                result['claim'] = after
                msg = ('the %d-byte pool cannot hold the claims: it holds %d of the %d pages its '
                       'base and claims ask (%s claimed %d); see hugepagesctl explain'
                       % (size, pool['minimum'], pool['target'], p['consumer'], wanted['pages']))
                if not p['accept_shortfall']:
                    module.fail_json(msg=msg, **result)
                module.warn(msg)
        result['claim'] = after
        if module._diff and result['changed']:
            result['diff'] = dict(before=before or {}, after=after or {})
    except HugepagesError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
