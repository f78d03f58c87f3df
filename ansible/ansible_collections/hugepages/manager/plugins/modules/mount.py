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
module: mount
short_description: Mount hugetlbfs for the system, a user, a group or everyone
version_added: "1.0.0"
description:
  - Makes hugepagesd's hugetlbfs mounts below /var/lib/hugetlbfs, one per page size
    (or only I(page_size)), as C(hugepagesctl mount-create) does, or unmounts them.
  - A mount is looked for at the path hugepagesd gives it (C(mount-create --dry-run)). A mount
    there with another owner or mode than the scope's (or I(mode)) is a change, which hugepagesd
    makes without remounting; with I(size), I(min_size) in bytes or I(inodes) given, a mount with
    other limits counts as a change, which hugepagesd refuses (it never stacks mounts); unmount
    it first with I(state=absent).
options:
  scope:
    description: C(system) (root:root 0770), C(user), C(group) or C(global) (1777).
    type: str
    required: true
    choices: [system, user, group, global]
  owner:
    description: The user (scope C(user)) or group (scope C(group)) name.
    type: str
  page_size:
    description: Only the mount of this page size (bytes, C(2M), C(1G)).
    type: str
  size:
    description: The mount's size limit, as memory (C(4G)) or a percentage of the pool (C(50%)).
    type: str
  min_size:
    description: Memory reserved when mounting, as memory or a percentage of the pool.
    type: str
  inodes:
    description: The most files in the mount.
    type: int
  mode:
    description: Permission bits (and the sticky bit), as an octal string such as C('0770').
    type: str
  state:
    description: Whether the mounts should exist.
    type: str
    choices: [present, absent]
    default: present
  persist:
    description:
      - Save the mount in hugepagesd's configuration, so that it is made again at boot. A mount
        in place whose section in the configuration is missing or says otherwise counts as a change.
      - With C(state=absent), the saved section is removed as well, also when the mount is already
        gone.
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
'''

EXAMPLES = r'''
- name: A 2 MB mount for the dba group, half the pool at most
  hugepages.manager.mount:
    scope: group
    owner: dba
    page_size: 2M
    size: 50%
    persist: true
'''

RETURN = r'''
paths:
  description: The mount points looked at.
  returned: always
  type: list
  elements: str
  sample: ["/var/lib/hugetlbfs/group/dba/pagesize-2MB"]
mounts:
  description: The mounts at those paths afterwards, as in C(hugepagesctl mounts --json).
  returned: always
  type: list
  elements: dict
  sample: [{"path": "/var/lib/hugetlbfs/group/dba/pagesize-2MB", "page_size": 2097152, "mode": 56}]
commands:
  description: The hugepagesctl commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ["mount-create group dba --page-size 2097152 --size 50%"]
'''

import grp
import pwd

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, error_line, fail, is_decimal, parse_size)

# The owner and mode hugepagesd gives a scope's mounts when the task names
# no mode (mount-create --help); a mount in place with another owner or
# mode is one the service would change.
SCOPE_MODES = {'system': 0o770, 'user': 0o700, 'group': 0o070, 'global': 0o1777}


def owner_of(scope, owner):
    """(uid, gid, name) the scope's mounts are owned by; name is the user or
    group name hugepagesd saves the section under."""
    try:
        if scope == 'user':
            pw = pwd.getpwuid(int(owner)) if is_decimal(owner) else pwd.getpwnam(owner)
            return pw.pw_uid, 0, pw.pw_name
        if scope == 'group':
            gr = grp.getgrgid(int(owner)) if is_decimal(owner) else grp.getgrnam(owner)
            return 0, gr.gr_gid, gr.gr_name
    except KeyError:
        raise HugepagesError("owner: no %s '%s' on this host" % (scope, owner))
    return 0, 0, None


def differs(mount, p, uid, gid, mode):
    if (mount['uid'], mount['gid'], mount['mode']) != (uid, gid, mode):
        return True
    if p['inodes'] is not None and mount['max_inodes'] != p['inodes']:
        return True
    for option, key in (('size', 'max_size'), ('min_size', 'min_size')):
        if p[option] is not None and not p[option].endswith('%') and \
                mount[key] != parse_size(p[option]):
            return True
    return False


def limit_value(text):
    """A saved or asked size limit, comparable: bytes, or 'N%'."""
    return text if text.endswith('%') else parse_size(text)


def wanted_section(p, page_size, mode):
    """The [mount ...] section mount-create --persist saves for the task, as
    key -> comparable value."""
    wanted = {'mode': mode}
    if page_size is not None:
        wanted['page-size'] = page_size
    if p['size'] is not None:
        wanted['max-size'] = limit_value(p['size'])
    if p['min_size'] is not None:
        wanted['min-size'] = limit_value(p['min_size'])
    if p['inodes'] is not None:
        wanted['max-inodes'] = p['inodes']
    return wanted


def saved_section(value):
    """config --json's value of a mount section ("page-size=2MB mode=0770")
    in the form of wanted_section; None when it cannot be read."""
    saved = {}
    try:
        for word in value.split():
            key, text = word.split('=', 1)
            if key == 'mode':
                saved[key] = int(text, 8)
            elif key == 'max-inodes':
                saved[key] = int(text)
            elif key == 'page-size':
                saved[key] = parse_size(text)
            else:
                saved[key] = limit_value(text)
    except (ValueError, HugepagesError):
        return None
    return saved


def main():
    module = AnsibleModule(
        argument_spec=dict(
            scope=dict(type='str', required=True, choices=['system', 'user', 'group', 'global']),
            owner=dict(type='str'),
            page_size=dict(type='str'),
            size=dict(type='str'),
            min_size=dict(type='str'),
            inodes=dict(type='int'),
            mode=dict(type='str'),
            state=dict(type='str', choices=['present', 'absent'], default='present'),
            persist=dict(type='bool', default=False),
            **COMMON_ARGS),
        required_if=[('scope', 'user', ('owner',)), ('scope', 'group', ('owner',))],
        supports_check_mode=True,
    )
    p = module.params
    result = dict(changed=False, commands=[], paths=[], mounts=[])
    try:
        if p['mode'] is not None:
            try:
                int(p['mode'], 8)
            except ValueError:
                raise HugepagesError("mode: '%s' is not an octal mode" % p['mode'])
        ctl = Hugepagesctl(module)
        uid, gid, name = owner_of(p['scope'], p['owner'] or '')
        mode = int(p['mode'], 8) if p['mode'] is not None else SCOPE_MODES[p['scope']]
        size = None
        pools = dict((pool['page_size'], pool['name']) for pool in ctl.status()['pools'])
        command = ['mount-create', p['scope']] + \
            ([p['owner']] if p['scope'] in ('user', 'group') else [])
        if p['page_size'] is not None:
            size = parse_size(p['page_size'])
            if size not in pools:
                raise HugepagesError('this host has no pool of %s pages' % p['page_size'])
            command += ['--page-size', size]
        where = list(command)
        for option, flag in (('size', '--size'), ('min_size', '--min-size'),
                             ('inodes', '--inodes'), ('mode', '--mode')):
            if p[option] is not None:
                command += [flag, p[option]]
        def mount_points(command):
            # the mount points as hugepagesd makes them; a dry run needs no
            # authorization, changes nothing, and refuses what the change
            # would be refused (a mount in place with other limits)
            rc, out, err = ctl.run(*(command + ['--dry-run']))
            if rc != 0:
                raise HugepagesError('hugepagesctl %s --dry-run failed: %s'
                                     % (' '.join(str(a) for a in command), error_line(err)),
                                     rc=rc, stderr=err)
            return sorted(line for line in out.splitlines() if line.startswith('/'))

        if p['state'] == 'present':
            paths = mount_points(command)
        else:
            # the service's mounts of the scope, whatever their limits
            prefix = {'system': '', 'global': 'global/', 'user': 'user/%s/' % name,
                      'group': 'group/%s/' % name}[p['scope']]
            ends = ['/hugetlbfs/%spagesize-%s' % (prefix, pools[s])
                    for s in ([size] if size is not None else pools)]
            paths = sorted(m['path'] for m in ctl.read('mounts')['mounts']
                           if m['managed'] and any(m['path'].endswith(e) for e in ends))
        result['paths'] = paths

        def current():
            return dict((m['path'], m) for m in ctl.read('mounts')['mounts'] if m['path'] in paths)

        before = current()
        commands = []
        key = 'mount %s' % p['scope'] + (' %s' % name if name is not None else '')
        settings = ctl.settings() if p['persist'] else {}
        if p['state'] == 'present':
            # a mount in force but not saved as asked is a change with persist
            unsaved = p['persist'] and (key not in settings or saved_section(settings[key]) !=
                                        wanted_section(p, size, mode))
            if len(before) != len(paths) or unsaved or \
                    any(differs(m, p, uid, gid, mode) for m in before.values()):
                commands.append(command + (['--persist'] if p['persist'] else []))
        else:
            for path in sorted(before):
                commands.append(['unmount', path] + (['--persist'] if p['persist'] else []))
            if p['persist'] and not before and key in settings:
                # saved but not mounted (unmounted by hand): unmount
                # --persist of one of the scope's mount points removes the
                # section alone
                commands.append(['unmount', mount_points(where)[0], '--persist'])
        result['commands'] = [' '.join(str(a) for a in c) for c in commands]
        result['changed'] = bool(commands)
        if commands and not module.check_mode:
            for command in commands:
                ctl.change(*command)
            after = current()
        elif commands:
            after = dict((path, {'path': path}) for path in paths) if p['state'] == 'present' else {}
        else:
            after = before
        result['mounts'] = [after[k] for k in sorted(after)]
        if module._diff and commands:
            result['diff'] = dict(before='\n'.join(sorted(before)) + '\n',
                                  after='\n'.join(sorted(after)) + '\n')
    except HugepagesError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
