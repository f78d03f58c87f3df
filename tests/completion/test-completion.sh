#!/bin/bash
# SPDX-FileCopyrightText: 2026 The hugepagesd authors
# SPDX-License-Identifier: LGPL-2.1-or-later

# Tests the bash completion of hugepagesctl (data/completion/hugepagesctl):
# sources it, sets COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as
# readline would, calls _hugepagesctl and compares COMPREPLY. The system is
# a fake tree (_HUGEPAGESCTL_ROOT): page sizes, NUMA nodes, THP settings and
# /proc/mounts; commands and options come from the real client's --help.
#
#   test-completion.sh COMPLETION HUGEPAGESCTL
#
# Runs everything twice: with bash-completion loaded (_init_completion, as
# in an interactive shell) and without it. Prints TAP.
set -u

completion=$(realpath "$1")
client=$(realpath "$2")
bash_completion=/usr/share/bash-completion/bash_completion

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/sys/kernel/mm/hugepages/hugepages-{64,2048,1048576}kB \
         "$root"/sys/devices/system/node/node{0,1} \
         "$root"/sys/kernel/mm/transparent_hugepage/{hugepages-64kB,khugepaged} \
         "$root"/proc "$root/mnt/huge 2M" "$root"/mnt/huge1G
echo 'always [madvise] never' > "$root"/sys/kernel/mm/transparent_hugepage/enabled
echo 'always defer defer+madvise [madvise] never' > "$root"/sys/kernel/mm/transparent_hugepage/defrag
echo 'always inherit madvise [never]' > "$root"/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled
echo 4096 > "$root"/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan
touch "$root/mnt/huge 2M/orphan" "$root/mnt/huge 2M/other"
cat > "$root"/proc/mounts <<EOF
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
hugetlbfs ${root// /\\040}/mnt/huge\\0402M hugetlbfs rw,nosuid,nodev,relatime,pagesize=2M 0 0
tmpfs /run tmpfs rw,nosuid,nodev 0 0
none $root/mnt/huge1G hugetlbfs rw,relatime,pagesize=1024M 0 0
EOF

# A client whose help has a command and options that the real one lacks:
# the completion must offer what the help says, not a list of its own.
cat > "$root"/fakectl <<'EOF'
#!/bin/sh
case "$1" in
  --help-all) printf 'Usage:\n  fakectl [OPTION…] COMMAND\n\nHelp Options:\n  -h, --help     Show help options\n\nApplication Options:\n  --frob-level=N   Frob\n  -q, --quiet      Quiet\n\nCommands:\n  frobnicate X  Frob it\n  status        Status\n\nExit status: 0\n' ;;
  frobnicate) printf 'Usage:\n  fakectl frobnicate\n\nApplication Options:\n  --twice     Twice\n  --color=WHEN  Colour\n' ;;
  *) exit 1 ;;
esac
EOF
chmod +x "$root"/fakectl

export _HUGEPAGESCTL_ROOT=$root
n=0
failed=0

# complete LINE: completes at the end of LINE, split into words as
# readline does (blanks, and COMP_WORDBREAKS' = and :); prints COMPREPLY
# sorted, one a line
complete_line()
{
    local line=$1 word=""
    local -a split=()
    local i c
    for (( i = 0; i < ${#line}; i++ )); do
        c=${line:i:1}
        if [[ $c == " " ]]; then
            [[ -n $word ]] && split+=("$word")
            word=""
        elif [[ $c == "=" || $c == ":" ]]; then
            [[ -n $word ]] && split+=("$word")
            split+=("$c")
            word=""
        else
            word+=$c
        fi
    done
    split+=("$word")
    COMP_WORDS=("${split[@]}")
    COMP_CWORD=$(( ${#split[@]} - 1 ))
    COMP_LINE=$line
    COMP_POINT=${#line}
    COMPREPLY=()
    _hugepagesctl 2>/dev/null
    (( ${#COMPREPLY[@]} == 0 )) || printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect DESCRIPTION LINE EXPECTED...: COMPREPLY is exactly EXPECTED
expect()
{
    local description=$1 line=$2
    shift 2
    local got wanted
    got=$(complete_line "$line" | tr '\n' ' ')
    wanted=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
    n=$(( n + 1 ))
    if [[ "$got" == "$wanted" ]]; then
        echo "ok $n - $mode: $description"
    else
        echo "not ok $n - $mode: $description"
        echo "#   line:     '$line'"
        echo "#   expected: '$wanted'"
        echo "#   got:      '$got'"
        failed=$(( failed + 1 ))
    fi
}

# expect_has DESCRIPTION LINE WORD...: COMPREPLY includes every WORD
expect_has()
{
    local description=$1 line=$2
    shift 2
    local got word ok=1
    got=$(complete_line "$line")
    for word in "$@"; do
        grep -qxF -- "$word" <<< "$got" || { ok=0; echo "#   missing: $word"; }
    done
    n=$(( n + 1 ))
    if (( ok )); then
        echo "ok $n - $mode: $description"
    else
        echo "not ok $n - $mode: $description"
        echo "#   got: $(tr '\n' ' ' <<< "$got")"
        failed=$(( failed + 1 ))
    fi
}

run_cases()
{
    local c=$client
    # every command of the client's help, and no other word
    local commands
    commands=$("$c" --help-all | awk '/^Commands:/ {l=1; next} l && /^$/ {exit} l {print $1}')
    # shellcheck disable=SC2086
    expect "all commands" "$c " $commands
    expect "commands by prefix" "$c set-" set-max set-min set-node
    # where a command would be: ours and hugeadm's
    expect_has "global options" "$c --" --help --host= --no-ask-password --version \
        --pool-list --pool-pages-min= --explain
    expect "hugeadm options by prefix" "$c --pool-" --pool-list --pool-pages-max= --pool-pages-min=
    expect "hugeadm options after a hugeadm option" "$c --pool-list --create-g" \
        --create-global-mounts --create-group-mounts=
    expect "hugeadm options after the hugeadm command" "$c hugeadm --thp-n" --thp-never
    expect "hugeadm pool sizes" "$c --pool-pages-min " 64kB: 2M: 1G: DEFAULT:
    expect "hugeadm pool size=" "$c hugeadm --pool-pages-max=2" 2M:
    expect "hugeadm amount: nothing to offer" "$c --pool-pages-min 2M:" ""
    expect "hugeadm values: nothing to offer" "$c --max-inodes " ""
    expect_has "hugeadm user mounts" "$c --create-user-mounts ro" root
    expect_has "hugeadm shm group" "$c --explain --set-shm-group ro" root
    expect "hugeadm after a value" "$c --pool-pages-min 2M:1 --pool-l" --pool-list
    expect "a command after a global option" "$c --no-ask-password mo" monitor mount-create mounts
    expect "set-min options" "$c set-min 2M 512 --" \
        --dry-run --persist --hard --timeout= --drop-caches --no-ask-password --host= --help
    expect "pools short and long options" "$c pools -" \
        -h --help -l --long -n --nodes --no-ask-password -H --host= --json
    expect "page sizes" "$c set-min " 64kB 2M 1G DEFAULT
    expect "page sizes by prefix" "$c demote 1" 1G
    expect "amount: nothing to offer" "$c set-min 2M " ""
    expect "a negative amount is an argument" "$c set-min 2M -4 --dry" --dry-run
    expect "NUMA nodes" "$c set-node " 0 1
    expect "set-node: page size after the node" "$c set-node 1 " 64kB 2M 1G DEFAULT
    expect "--page-size value" "$c mount-create system --page-size " 64kB 2M 1G DEFAULT
    expect "--page-size=value" "$c mount-create system --page-size=2" 2M
    expect "--timeout value: nothing" "$c set-min 2M 1 --hard --timeout " ""
    expect "arguments after an option value" "$c set-node --timeout 5 " 0 1
    expect "mount scopes" "$c mount-create " system user group global
    expect_has "users" "$c mount-create user ro" root
    expect_has "groups" "$c mount-create group ro" root
    expect "no owner for system" "$c mount-create system " ""
    expect_has "shm-group groups" "$c shm-group ro" root
    expect "unmount: hugetlbfs mounts only" "$c unmount " "$root/mnt/huge 2M" "$root/mnt/huge1G"
    expect "remove-orphan: the mounts" "$c remove-orphan " "$root/mnt/huge 2M/" "$root/mnt/huge1G/"
    expect "zone-movable" "$c zone-movable " on off
    expect "shm-max" "$c shm-max " recommended
    expect "min-free-kbytes" "$c min-free-kbytes r" recommended
    expect "thp names" "$c thp " enabled= defrag= hugepages-64kB/enabled= khugepaged/pages_to_scan=
    expect "thp names by prefix" "$c thp enabled=madvise h" hugepages-64kB/enabled=
    expect "one argument, then nothing" "$c unmount /x " ""
    expect "unknown command: nothing" "$c frobnicate " ""

    # what the help says, not a list of the completion's own
    c=$root/fakectl
    expect "commands from the help" "$c " frobnicate status
    expect "global options from the help" "$c -" -h --help --frob-level= -q --quiet
    expect "command options from the help" "$c frobnicate --" --twice --color=
    expect "a value option of the help takes the next word" "$c --frob-level 3 fr" frobnicate
}

run_with_bash_completion()
{
    # what an interactive shell has: _init_completion, = and : joined back
    # into the word
    if [[ ! -r $bash_completion ]]; then
        echo "ok $(( n + 1 )) # SKIP bash-completion is not installed"
        n=$(( n + 1 ))
        return 1
    fi
    # shellcheck disable=SC1090
    . "$bash_completion"
    . "$completion"
    run_cases
}

# needs "enabled=ma" as one word, as _init_completion -n = or the fallback's
# joining give it
thp_cases()
{
    local c=$client
    expect "thp values" "$c thp enabled=" enabled=always enabled=madvise enabled=never
    expect "thp values by prefix" "$c thp defrag=defer" defrag=defer defrag=defer+madvise
    expect "mTHP values" "$c thp hugepages-64kB/enabled=i" hugepages-64kB/enabled=inherit
    expect "no values of files outside THP" "$c thp ../../../proc/mounts=" ""
}

mode="plain"
( . "$completion"; run_cases; thp_cases; exit $(( failed > 0 )) ) > "$root/plain.tap"
plain_failed=$?
mode="bash-completion"
( run_with_bash_completion && thp_cases; exit $(( failed > 0 )) ) > "$root/bc.tap"
bc_failed=$?

plain_count=$(grep -c '^\(not \)\?ok ' "$root/plain.tap")
cat "$root/plain.tap"
# renumber the second run after the first
awk -v base="$plain_count" '
    /^(not )?ok [0-9]+/ { match($0, /[0-9]+/); print substr($0, 1, RSTART - 1) (substr($0, RSTART, RLENGTH) + base) substr($0, RSTART + RLENGTH); next }
    { print }' "$root/bc.tap"
total=$(( plain_count + $(grep -c '^\(not \)\?ok ' "$root/bc.tap") ))
echo "1..$total"
(( plain_failed == 0 && bc_failed == 0 ))
