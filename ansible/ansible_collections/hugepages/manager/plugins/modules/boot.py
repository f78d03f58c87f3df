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
module: boot
short_description: Write the huge page boot parameters the configuration asks for
version_added: "1.0.0"
description:
  - Gigantic pages (1 GB) are best reserved on the kernel command line. hugepagesd derives the
    parameters (C(default_hugepagesz=), C(hugepagesz=), C(hugepages=)) from its configuration,
    which the other modules' C(persist) option writes, and writes them for GRUB on Debian
    (C(hugepagesctl boot --write)).
  - hugepagesd compares the drop-in it would write with the one in place (its BootDropIn
    property, read with C(hugepagesctl boot --json)); the module has it write only when they
    differ, and shows its answer as the diff. The running kernel is unchanged; C(reboot_required) says whether a
    reboot would give other pages.
  - Where the service cannot write them (no Debian GRUB) the task fails with the parameters
    to add.
options: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - hugepages.manager.common
'''

EXAMPLES = r'''
- name: Four 1 GB pages, at boot
  hugepages.manager.pool:
    page_size: 1G
    minimum: 4
    persist: true
    accept_shortfall: true

- name: Put them on the kernel command line
  hugepages.manager.boot:
  register: boot

- name: Reboot when the running kernel has other pages
  ansible.builtin.reboot:
  when: boot.reboot_required
'''

RETURN = r'''
boot_parameters:
  description: The parameters the configuration asks for ("" for none).
  returned: always
  type: str
  sample: "hugepagesz=1G hugepages=4"
kernel_command_line:
  description: The huge page parameters of the running kernel.
  returned: always
  type: str
  sample: ""
reboot_required:
  description: Whether the parameters would give the kernel other huge pages than it has.
  returned: always
  type: bool
  sample: true
path:
  description: The GRUB drop-in hugepagesd writes.
  returned: always
  type: str
  sample: /etc/default/grub.d/hugepagesd.cfg
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.hugepages.manager.plugins.module_utils.hugepagesctl import (
    COMMON_ARGS, Hugepagesctl, HugepagesError, fail)


def check_writable(ctl, parameters):
    """hugepagesd's own check, as a dry run (which needs no authorization):
    a system it cannot write the boot loader's configuration on, or a
    configuration that cannot be used at boot, fails here in check mode too."""
    rc, out, err = ctl.run('boot', '--write', '--dry-run')
    if rc != 0:
        raise HugepagesError('hugepagesctl boot --write --dry-run failed: %s'
                             % ' '.join(line for line in (out + err).splitlines() if line),
                             rc=rc, boot_parameters=parameters)


def main():
    module = AnsibleModule(argument_spec=dict(**COMMON_ARGS), supports_check_mode=True)
    result = dict(changed=False)
    try:
        ctl = Hugepagesctl(module)
        boot = ctl.read('boot')
        parameters = boot['boot_parameters']
        result.update(boot_parameters=parameters,
                      kernel_command_line=boot['kernel_command_line'],
                      reboot_required=boot['reboot_required'])
        check_writable(ctl, parameters)
        # The drop-in's path, its text and whether the one in place is it
        # are hugepagesd's (BootDropIn): the file is never read here.
        drop_in = boot.get('drop_in')
        if not drop_in:
            raise HugepagesError('this hugepagesd does not report its boot drop-in (BootDropIn): '
                                 'update hugepagesd on the host')
        path = drop_in['path']
        result['path'] = path
        result['changed'] = not drop_in['up_to_date']
        if result['changed'] and not module.check_mode:
            ctl.change('boot', '--write')
            result['reboot_required'] = ctl.read('boot')['reboot_required']
        if module._diff and result['changed']:
            # "contents" is left out by the service when not every account
            # may read the file
            shown = 'contents' in drop_in
            result['diff'] = dict(before=drop_in.get('contents', ''), after=drop_in['text'],
                                  before_header=path if shown else '%s (not shown)' % path,
                                  after_header=path)
    except HugepagesError as e:
        fail(module, e, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
