# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: GPL-3.0-or-later

# -*- coding: utf-8 -*-
# Copyright: hugepagesd developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):

    # What every module of the collection shares, written once: a module
    # states only where it differs (extends_documentation_fragment lists
    # ansible.builtin.action_common_attributes first, for the attributes'
    # descriptions).
    DOCUMENTATION = r'''
author:
  - hugepagesd developers
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
  platform:
    platforms: posix
options:
  hugepagesctl:
    description:
      - Path of the C(hugepagesctl) client on the managed host.
      - By default it is searched for in C(PATH).
    type: path
requirements:
  - hugepagesd and hugepagesctl on the managed host
notes:
  - The module changes nothing itself; it asks hugepagesd through C(hugepagesctl --json),
    so hugepagesd's polkit rules apply. Run it as root (C(become)) or as a user that a polkit
    rule allows; a user that is refused gets a failed task with hugepagesd's message.
'''
