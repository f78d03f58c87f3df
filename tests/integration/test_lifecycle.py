"""Process lifecycle: losing the bus is a failure exit (so systemd restarts
the service), SIGTERM is a clean exit, --replace takes the name over."""

import signal
import time

import hpdtest
from fakekernel import FakeKernel
from hpdtest import page_size_path


def test_sigterm_exits_zero(start_service, fake_kernel, conn, polkit):
    svc = start_service(fake_kernel.root)
    assert svc.owns_name(conn)
    svc.proc.send_signal(signal.SIGTERM)
    assert svc.wait_exit(3) == 0, svc.log()
    deadline = time.monotonic() + 2
    while hpdtest.name_owner(conn) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert hpdtest.name_owner(conn) is None


def test_sigint_exits_zero(start_service, fake_kernel, polkit):
    svc = start_service(fake_kernel.root)
    svc.proc.send_signal(signal.SIGINT)
    assert svc.wait_exit(3) == 0, svc.log()


def test_losing_the_bus_is_a_failure_exit(make_bus, start_service, fake_kernel):
    own = make_bus()
    svc = start_service(fake_kernel.root, bus=own)
    own.proc.kill()
    own.proc.wait()
    start = time.monotonic()
    status = svc.wait_exit(3)
    elapsed = time.monotonic() - start
    assert status is not None, 'hugepagesd still runs after its bus died'
    assert status != 0, f'hugepagesd exited {status} after losing the bus'
    assert status > 0, f'hugepagesd died of signal {-status} instead of exiting'
    assert elapsed < 1.5, f'hugepagesd took {elapsed:.2f}s to notice the bus died'


def test_replace_takes_over_the_name(start_service, fake_kernel, conn, polkit, tmp_path):
    first = start_service(fake_kernel.root)
    assert first.owns_name(conn)
    other = tmp_path / 'other'
    FakeKernel(other, nodes=1, sizes=(2048,))
    second = start_service(str(other), args=['--replace'], check=True)
    assert second.owns_name(conn)
    # the replaced instance leaves, successfully: a service manager must not
    # restart it into a fight over the name; the name now serves the second tree
    status = first.wait_exit(3)
    assert status is not None, 'the replaced hugepagesd keeps running'
    assert status == 0, f'replaced instance exited {status}\n{first.log()}'
    assert hpdtest.manager_props(conn)['PageSizes'] == [2 << 20]
    assert hpdtest.get(conn, page_size_path(2048), hpdtest.PAGE_SIZE_IFACE, 'Size') == 2 << 20


def test_second_instance_without_replace_gives_up(start_service, fake_kernel, conn, polkit):
    first = start_service(fake_kernel.root, check=True)
    second = start_service(fake_kernel.root, wait=False)
    status = second.wait_exit(3)
    assert status is not None and status != 0, f'second instance: {status}\n{second.log()}'
    assert first.owns_name(conn)


def test_bad_kernel_root_fails_to_start(start_service, tmp_path, fake_kernel):
    # a hugepages directory but no /proc/meminfo: the daemon cannot tell the
    # default size and must refuse to start rather than guess
    fake_kernel.remove('proc/meminfo')
    svc = start_service(fake_kernel.root, wait=False)
    status = svc.wait_exit(3)
    assert status is not None and status != 0, svc.log()
