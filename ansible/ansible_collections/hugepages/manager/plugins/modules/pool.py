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
module: pool
short_description: Set the minimum, maximum and per-node size of a huge page pool
version_added: "1.0.0"
description:
  - Sets the persistent pool (minimum), how far the pool may grow on demand (maximum) and the
    persistent pages of single NUMA nodes of one huge page size, through hugepagesd.
  - Amounts are absolute, in pages or as memory that is a whole number of pages;
    relative amounts such as C(+4) or C(-1G) are refused, so that a second run changes nothing.
  - With claims on the size (M(hugepages.manager.claim)), I(minimum) is the administrator's base;
    hugepagesd keeps the base plus every claim in the kernel's pool.
  - When the kernel gives fewer pages than asked, the task fails with the figures, unless
    I(accept_shortfall) is true.
options:
  page_size:
    description:
      - The huge page size, as bytes or as C(2M), C(1G), C(2MB).
    type: str
    required: true
  minimum:
    description:
      - Persistent pages of the pool (pages, or memory such as C(1G)).
    type: raw
  maximum:
    description:
      - The most pages the pool may grow to on demand (minimum plus overcommit).
    type: raw
  nodes:
    description:
      - Persistent pages per NUMA node, as a mapping of node number to pages or memory.
      - With I(persist), not together with I(minimum) - hugepagesd saves a pool as its minimum
        or as node counts, and a node count saved replaces the minimum.
    type: dict
  persist:
    description:
      - Also save the values in hugepagesd's configuration, so that C(hugepagesd --apply)
        sets them again at boot. A value applied but not saved counts as a change.
    type: bool
    default: false
  hard:
    description:
      - When the kernel gives less, let hugepagesd compact memory and try again (C(--hard)).
    type: bool
    default: false
  accept_shortfall:
    description:
      - Report a pool that fell short as a warning instead of failing the task.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
attributes:
  check_mode:
    details: Reports the commands it would run; the kernel's achievable count is not known.
'''

EXAMPLES = r'''
- name: 1024 persistent 2 MB pages, growing to 2048 on demand, saved for boot
  hugepages.manager.pool:
    page_size: 2M
    minimum: 2G
    maximum: 2048
    persist: true

- name: Four 1 GB pages on each of two nodes
  hugepages.manager.pool:
    page_size: 1G
    nodes:
      0: 4
      1: 4

- name: As many as the kernel gives, with compaction
  hugepages.manager.pool:
    page_size: 2M
    minimum: 4096
    hard: true
    accept_shortfall: true
'''

RETURN = r'''
page_size:
  description: The page size in bytes.
  returned: always
  type: int
  sample: 2097152
requested:
  description: The values asked for, in pages (null where not given).
  returned: always
  type: dict
  sample: {"minimum": 1024, "maximum": 2048, "nodes": {}}
before:
  description: The pool before, in pages (minimum is the base without claims).
  returned: always
  type: dict
  sample: {"minimum": 0, "maximum": 0, "nodes": {"0": 0, "1": 0}}
after:
  description: The pool afterwards as read back (in check mode, as planned).
  returned: always
  type: dict
  sample: {"minimum": 1024, "maximum": 2048, "nodes": {"0": 512, "1": 512}}
commands:
  description: The hugepagesctl commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ["set-min 2097152 1024 --persist"]
shortfall:
  description: Whether the kernel gave fewer pages than asked.
  returned: always
  type: bool
  sample: false
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, fail, is_decimal, parse_pages)


def claimed(ctl, page_size):
    return sum(c['pages'] for c in ctl.claims() if c['page_size'] == page_size)


def state_of(pool, claims):
    return {
        'minimum': max(pool['minimum'] - claims, 0),
        'maximum': pool['maximum'],
        'nodes': dict((str(n['node']), n['minimum']) for n in pool['nodes']),
    }


def saved_pages(settings, key, page_size):
    value = settings.get(key)
    if value is None:
        return None
    try:
        return parse_pages(value, page_size, key)
    except HugepagesError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            page_size=dict(type='str', required=True),
            minimum=dict(type='raw'),
            maximum=dict(type='raw'),
            nodes=dict(type='dict'),
            persist=dict(type='bool', default=False),
            hard=dict(type='bool', default=False),
            accept_shortfall=dict(type='bool', default=False),
            **COMMON_ARGS),
        required_one_of=[('minimum', 'maximum', 'nodes')],
        supports_check_mode=True,
    )
    p = module.params
    result = dict(changed=False, commands=[], shortfall=False)
    try:
        ctl = Hugepagesctl(module)
        pool = ctl.pool(p['page_size'])
        size = pool['page_size']
        result['page_size'] = size
        requested = {
            'minimum': parse_pages(p['minimum'], size, 'minimum'),
            'maximum': parse_pages(p['maximum'], size, 'maximum'),
            'nodes': {},
        }
        for node, amount in (p['nodes'] or {}).items():
            if not is_decimal(str(node)):
                raise HugepagesError("nodes: '%s' is not a node number" % node)
            requested['nodes'][str(int(node))] = parse_pages(amount, size, 'nodes[%s]' % node)
        result['requested'] = requested
        if p['persist'] and requested['minimum'] is not None and requested['nodes']:
            # set-node --persist replaces the saved minimum with node counts
            # and set-min --persist drops them: saved together, each run
            # would undo the other and never report no change
            raise HugepagesError('persist saves a pool either as its minimum or as node counts '
                                 '(a saved node count replaces the minimum): give minimum or '
                                 'nodes, not both')

        before = state_of(pool, claimed(ctl, size))
        result['before'] = before
        settings = ctl.settings() if p['persist'] else {}
        persist = ['--persist'] if p['persist'] else []
        name = pool['name']

        commands = []
        if requested['minimum'] is not None and (
                before['minimum'] != requested['minimum'] or
                (p['persist'] and saved_pages(settings, 'pool %s minimum' % name, size)
                 != requested['minimum'])):
            commands.append(['set-min', size, requested['minimum']] + persist +
                            (['--hard'] if p['hard'] else []))
        if requested['maximum'] is not None and (
                before['maximum'] != requested['maximum'] or
                (p['persist'] and saved_pages(settings, 'pool %s maximum' % name, size)
                 != requested['maximum'])):
            commands.append(['set-max', size, requested['maximum']] + persist)
        for node, pages in sorted(requested['nodes'].items()):
            if node not in before['nodes']:
                raise HugepagesError('this host has no NUMA node %s' % node)
            if before['nodes'][node] != pages or (
                    p['persist'] and saved_pages(settings, 'pool %s node%s' % (name, node), size)
                    != pages):
                commands.append(['set-node', node, size, pages] + persist +
                                (['--hard'] if p['hard'] else []))
        result['commands'] = [' '.join(str(a) for a in c) for c in commands]
        result['changed'] = bool(commands)

        if module.check_mode or not commands:
            after = dict(before, nodes=dict(before['nodes']))
            for key in ('minimum', 'maximum'):
                if requested[key] is not None:
                    after[key] = requested[key]
            after['nodes'].update(requested['nodes'])
        else:
            messages = []
            for command in commands:
                short, out, err = ctl.change(*command)
                result['shortfall'] = result['shortfall'] or short
                if short:
                    messages.append(err.strip())
            after = state_of(ctl.pool(size), claimed(ctl, size))
        result['after'] = after
        if module._diff and result['changed']:
            result['diff'] = dict(before=before, after=after,
                                  before_header='%s pool' % name, after_header='%s pool' % name)

        if result['shortfall']:
            msg = ('the kernel gave fewer %s pages than asked: requested %s, achieved %s (%s)'
                   % (name, requested, after, '; '.join(messages)))
            if not p['accept_shortfall']:
                module.fail_json(msg=msg, **result)
            module.warn(msg)
    except HugepagesError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
