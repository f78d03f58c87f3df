# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

"""A python-dbusmock template for polkitd that decides per user, as polkit
rules do: root is always authorized (as polkitd's own special case), any
other uid only for the actions SetRules() gave it. The subject's uid comes
from the bus (system-bus-name) or from /proc (unix-process), so a page
asking for itself and the service asking about its caller get the same
answer. The shell tests of the cockpit tier need this: administrative access
(root through sudo), a user a rule allows and a user with no rights must be
told apart, which the stock template (one list for everybody) cannot.

    python3 -m dbusmock --system --template tests/cockpit/polkit_rules.py
"""

import dbus

from dbusmock import MOCK_IFACE

BUS_NAME = 'org.freedesktop.PolicyKit1'
MAIN_OBJ = '/org/freedesktop/PolicyKit1/Authority'
MAIN_IFACE = 'org.freedesktop.PolicyKit1.Authority'
SYSTEM_BUS = True


def load(mock, _parameters):
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary({
        'BackendName': 'rules-mock',
        'BackendVersion': '0.1',
        'BackendFeatures': dbus.UInt32(1, variant_level=1),
    }, signature='sv'))
    mock.rules = {}


def subject_uid(mock, subject):
    kind, details = subject
    if kind == 'system-bus-name':
        return int(mock.connection.call_blocking(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetConnectionUnixUser', 's', [str(details['name'])]))
    if kind == 'unix-process':
        if 'uid' in details and int(details['uid']) >= 0:
            return int(details['uid'])
        with open(f"/proc/{int(details['pid'])}/status") as f:
            for line in f:
                if line.startswith('Uid:'):
                    return int(line.split()[1])
    raise dbus.exceptions.DBusException(f'subject kind {kind} is not supported',
                                        name='org.freedesktop.PolicyKit1.Error.Failed')


@dbus.service.method(MAIN_IFACE, in_signature='(sa{sv})sa{ss}us', out_signature='(bba{ss})')
def CheckAuthorization(self, subject, action_id, _details, _flags, _cancellation_id):
    uid = subject_uid(self, subject)
    allowed = uid == 0 or str(action_id) in self.rules.get(uid, ())
    return (allowed, False, {})


@dbus.service.method(MAIN_IFACE, in_signature='(sa{sv})ss')
def RegisterAuthenticationAgent(_self, _subject, _locale, _object_path):
    pass


@dbus.service.method(MOCK_IFACE, in_signature='a{uas}', out_signature='')
def SetRules(self, rules):
    """uid -> the actions that uid is allowed (replaces all rules)."""
    self.rules = {int(uid): {str(a) for a in actions} for uid, actions in rules.items()}
