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
module: tunables
short_description: Set the huge page tunables and transparent huge page settings
version_added: "1.0.0"
description:
  - Sets kernel.shmmax (with kernel.shmall), vm.hugetlb_shm_group, vm.min_free_kbytes,
    vm.movable_hugepages (zone_movable) and the transparent huge page settings through hugepagesd.
  - Only the options given are looked at; each is compared with the kernel and set when it differs.
options:
  shm_max:
    description:
      - kernel.shmmax in bytes (C(68719476736), C(64G)), or C(recommended) for the sum of the
        pools' maxima (a larger current value is kept).
    type: str
  shm_group:
    description: vm.hugetlb_shm_group, as a group name or gid.
    type: str
  min_free_kbytes:
    description:
      - vm.min_free_kbytes, or C(recommended) for khugepaged's formula (a larger current value
        is kept).
    type: str
  zone_movable:
    description: Whether huge pages may be allocated from ZONE_MOVABLE.
    type: bool
  thp:
    description:
      - Transparent huge page settings, by their path below /sys/kernel/mm/transparent_hugepage,
        for example C(enabled), C(defrag), C(khugepaged/pages_to_scan).
    type: dict
  persist:
    description:
      - Also save the values in hugepagesd's configuration for boot. A value applied but not saved
        counts as a change.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
'''

EXAMPLES = r'''
- name: Database host tunables
  hugepages.manager.tunables:
    shm_max: recommended
    shm_group: dba
    min_free_kbytes: recommended
    thp:
      enabled: never
      defrag: never
    persist: true
'''

RETURN = r'''
before:
  description: The settings looked at, before.
  returned: always
  type: dict
  sample: {"shm_max": 33554432, "thp": {"enabled": "always"}}
after:
  description: The same settings afterwards (in check mode, as planned).
  returned: always
  type: dict
  sample: {"shm_max": 68719476736, "thp": {"enabled": "never"}}
commands:
  description: The hugepagesctl commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ["thp enabled=never --persist"]
'''

import grp

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, fail, is_decimal, parse_size)

TRUE_WORDS = ('yes', 'on', 'true', '1')


def gid_of(text):
    if is_decimal(text):
        return int(text)
    try:
        return grp.getgrnam(text).gr_gid
    except KeyError:
        raise HugepagesError("shm_group: no group '%s' on this host" % text)


def saved_size(saved, key):
    try:
        return parse_size(saved[key])
    except (KeyError, HugepagesError):
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            shm_max=dict(type='str'),
            shm_group=dict(type='str'),
            min_free_kbytes=dict(type='str'),
            zone_movable=dict(type='bool'),
            thp=dict(type='dict'),
            persist=dict(type='bool', default=False),
            **COMMON_ARGS),
        required_one_of=[('shm_max', 'shm_group', 'min_free_kbytes', 'zone_movable', 'thp')],
        supports_check_mode=True,
    )
    p = module.params
    result = dict(changed=False, commands=[], before={}, after={})
    persist = ['--persist'] if p['persist'] else []
    try:
        ctl = Hugepagesctl(module)
        saved = ctl.settings() if p['persist'] else {}
        before, after, commands = {}, {}, []

        def unsaved(key, text):
            return p['persist'] and saved.get(key) != text

        if p['shm_max'] is not None:
            doc = ctl.read('shm-max')
            before['shm_max'] = doc['shmmax']
            if p['shm_max'] == 'recommended':
                target = max(doc['shmmax'], doc['recommended_shmmax'] or 0)
            else:
                target = parse_size(p['shm_max'])
            after['shm_max'] = target
            if p['shm_max'] == 'recommended':
                unsaved_value = unsaved('tunables shmmax', 'recommended')
            else:
                unsaved_value = p['persist'] and saved_size(saved, 'tunables shmmax') != target
            if target != doc['shmmax'] or unsaved_value:
                commands.append(['shm-max', p['shm_max'] if p['shm_max'] == 'recommended' else target])

        if p['shm_group'] is not None:
            gid = gid_of(p['shm_group'])
            before['shm_group'] = ctl.read('shm-group')['shm_group']
            after['shm_group'] = gid
            if gid != before['shm_group'] or (
                    p['persist'] and saved.get('tunables shm-group') not in (p['shm_group'], str(gid))):
                commands.append(['shm-group', p['shm_group']])

        if p['min_free_kbytes'] is not None:
            doc = ctl.read('min-free-kbytes')
            before['min_free_kbytes'] = doc['min_free_kbytes']
            if p['min_free_kbytes'] == 'recommended':
                target = max(doc['min_free_kbytes'], doc['recommended_min_free_kbytes'])
            elif is_decimal(p['min_free_kbytes']):
                target = int(p['min_free_kbytes'])
            else:
                raise HugepagesError("min_free_kbytes: a number of kB or 'recommended', not '%s'"
                                     % p['min_free_kbytes'])
            after['min_free_kbytes'] = target
            if target != doc['min_free_kbytes'] or unsaved('tunables min-free-kbytes',
                                                           p['min_free_kbytes']):
                commands.append(['min-free-kbytes', p['min_free_kbytes']])

        if p['zone_movable'] is not None:
            doc = ctl.read('zone-movable')
            before['zone_movable'] = doc['enabled']
            after['zone_movable'] = p['zone_movable']
            if doc['enabled'] != p['zone_movable'] or (
                    p['persist'] and (saved.get('tunables zone-movable', '').lower() in TRUE_WORDS)
                    != p['zone_movable']) or (p['persist'] and 'tunables zone-movable' not in saved):
                commands.append(['zone-movable', 'on' if p['zone_movable'] else 'off'])

        if p['thp']:
            doc = ctl.read('thp')
            current = dict((s['name'], str(s['value'])) for s in doc['settings'])
            current.update((s['name'], str(s['value'])) for s in doc['numeric_settings'])
            changes = []
            before['thp'], after['thp'] = {}, {}
            for name, value in sorted(p['thp'].items()):
                value = str(value)
                if name not in current:
                    raise HugepagesError("thp: this kernel has no setting '%s'" % name)
                before['thp'][name] = current[name]
                after['thp'][name] = value
                if current[name] != value or unsaved('thp %s' % name, value):
                    changes.append('%s=%s' % (name, value))
            if changes:
                commands.append(['thp'] + changes)

        commands = [c + persist for c in commands]
        result.update(before=before, after=after, changed=bool(commands),
                      commands=[' '.join(str(a) for a in c) for c in commands])
        if commands and not module.check_mode:
            for command in commands:
                ctl.change(*command)
        if module._diff and commands:
            result['diff'] = dict(before=before, after=after)
    except HugepagesError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
