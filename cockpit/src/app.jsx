// SPDX-FileCopyrightText: 2026 The hugepagesd authors
// SPDX-License-Identifier: LGPL-2.1-or-later

/* The page: the header with the session's alerts and "Keep changes after
 * reboot", the pools as a PatternFly table whose rows carry their actions
 * in a kebab menu, and the dialogs those actions open (validated as you
 * type); the other cards are in cards.jsx. All data comes from index.js
 * (api): its state, the service's proxies and the actions. */

import React, { useEffect, useState, useSyncExternalStore } from "react";
import { createRoot } from "react-dom/client";
import { Alert } from "@patternfly/react-core/dist/esm/components/Alert/index.js";
import { Breadcrumb, BreadcrumbItem } from "@patternfly/react-core/dist/esm/components/Breadcrumb/index.js";
import { Button } from "@patternfly/react-core/dist/esm/components/Button/index.js";
import { Card, CardBody, CardHeader, CardTitle } from "@patternfly/react-core/dist/esm/components/Card/index.js";
import { Gallery } from "@patternfly/react-core/dist/esm/layouts/Gallery/index.js";
import { Checkbox } from "@patternfly/react-core/dist/esm/components/Checkbox/index.js";
import { EmptyState, EmptyStateBody } from "@patternfly/react-core/dist/esm/components/EmptyState/index.js";
import { Form, FormGroup, FormHelperText } from "@patternfly/react-core/dist/esm/components/Form/index.js";
import { HelperText, HelperTextItem } from "@patternfly/react-core/dist/esm/components/HelperText/index.js";
import { Label } from "@patternfly/react-core/dist/esm/components/Label/index.js";
import { Modal, ModalBody, ModalFooter, ModalHeader } from "@patternfly/react-core/dist/esm/components/Modal/index.js";
import { NumberInput } from "@patternfly/react-core/dist/esm/components/NumberInput/index.js";
import { PageSection } from "@patternfly/react-core/dist/esm/components/Page/index.js";
import { Progress, ProgressSize } from "@patternfly/react-core/dist/esm/components/Progress/index.js";
import { Title } from "@patternfly/react-core/dist/esm/components/Title/index.js";
import { ToggleGroup, ToggleGroupItem } from "@patternfly/react-core/dist/esm/components/ToggleGroup/index.js";
import { Table, Tbody, Td, Th, Thead, Tr } from "@patternfly/react-table/dist/esm/components/Table/index.js";
import { formatBytes } from "./format.js";
import { pagesError } from "./validate.js";
import { _, format, ngettext } from "./i18n.js";
import { ClaimsCard, ConfigCard, ExplainCard, HpCard, Kebab, MountsCard, TunablesCard, UsageCard, bootDropIn } from "./cards.jsx";

/* An id from a pool's name ("2MB"), as the tests and labels use it */
const poolId = name => name.replace(/[^A-Za-z0-9]/g, "");

/* A stacked bar of a pool's (or a node's) pages: in use, reserved, free,
 * with the surplus pages as a strip below; the numbers are its label and
 * its legend, so nothing is told by colour alone. Widths go through the
 * CSSOM (React's style property): the page's CSP refuses style attributes. */
function UsageBar({ id, what, counts }) {
    const total = counts.used + (counts.reserved || 0) + counts.free;
    const parts = [["used", _("$0 in use")], ["reserved", _("$0 reserved")], ["free", _("$0 free")]]
            .filter(([key]) => counts[key] !== undefined);
    const words = [...parts.map(([key, word]) => format(word, counts[key])), format(_("$0 surplus"), counts.surplus)];
    const width = n => (total > 0 ? `${(100 * n / total).toFixed(2)}%` : "0");
    return (
        <div className="hp-bar" id={id} data-total={total}>
            <div className="hp-bar-track" role="img" aria-label={`${what}: ${words.join(", ")}`}>
                {parts.map(([key]) => <span key={key} className={`hp-bar-${key}`} style={{ width: width(counts[key]) }} />)}
            </div>
            <div className="hp-bar-surplus-track" aria-hidden="true">
                <span className="hp-bar-surplus" style={{ width: width(counts.surplus) }} />
            </div>
            <div className="hp-bar-legend" aria-hidden="true">{words.join(" · ")}</div>
        </div>
    );
}

function PagesInput({ id, label, value, onChange, helper, error, warning }) {
    const number = value === "" ? "" : Number(value);
    const step = delta => onChange(String(Math.max(0, (Number(value) || 0) + delta)));
    const validated = error ? "error" : warning ? "warning" : "default";
    return (
        <FormGroup label={label} fieldId={id}>
            <NumberInput value={number} min={0} validated={validated}
                         onMinus={() => step(-1)} onPlus={() => step(1)}
                         onChange={ev => onChange(ev.target.value)}
                         inputAriaLabel={label} minusBtnAriaLabel={format(_("$0: one less"), label)}
                         plusBtnAriaLabel={format(_("$0: one more"), label)}
                         inputProps={{ id, "aria-invalid": Boolean(error) }} widthChars={10} />
            <FormHelperText>
                <HelperText id={`${id}-helper`}>
                    <HelperTextItem variant={validated === "default" ? "default" : validated}>
                        {error || warning || helper}
                    </HelperTextItem>
                </HelperText>
            </FormHelperText>
        </FormGroup>
    );
}

/* Resizing a pool, its maximum, or one node's pages. The dialog closes
 * when the change is sent: its progress and outcome show on the page. */
function PoolDialog({ api, dialog, onClose }) {
    const { proxy, kind } = dialog;
    const id = poolId(proxy.Name);
    const nodes = api.records(proxy.Nodes, ["node", "total", "free", "surplus", "minimum"]);
    const [node, setNode] = useState(nodes.length ? nodes[0][0] : 0);
    const nodeMinimum = n => { const row = nodes.find(r => r[0] === n); return row ? String(row[4]) : "0"; };
    const start = kind === "minimum" ? api.resizeStart(proxy)
        : kind === "maximum" ? proxy.Maximum : kind === "demote" ? "1" : nodeMinimum(node);
    const [value, setValue] = useState(String(start));
    const error = pagesError(value);
    const pages = error ? 0 : Number(value);
    const limitPages = Math.floor(api.manager.PoolMemoryLimit / proxy.Size);
    const warning = !error && pages > limitPages
        ? format(_("More than the $0 pages that the pool memory limit ($1) allows; the service will refuse it"),
                 limitPages, formatBytes(api.manager.PoolMemoryLimit))
        : null;
    const size = !error ? format(_("$0 of memory"), formatBytes(pages * proxy.Size)) : "";
    const spec = {
        minimum: {
            title: format(_("Resize the $0 pool"), proxy.Name),
            field: `hp-resize-${id}`, button: `hp-resize-button-${id}`, action: _("Set minimum"),
            label: _("Minimum pages"),
            helper: format(_("$0. Now $1 pages; the base is $2, the claims add $3."), size, proxy.Total, proxy.Base,
                           proxy.Target - proxy.Base),
            run: () => api.actions.resizePool(proxy, pages),
        },
        maximum: {
            title: format(_("The $0 pool's maximum"), proxy.Name),
            field: `hp-max-${id}`, button: `hp-max-button-${id}`, action: _("Set maximum"),
            label: _("Maximum pages"),
            helper: format(_("$0. The pool may grow to this with surplus pages; now $1."), size, proxy.Maximum),
            run: () => api.actions.setMaximum(proxy, pages),
        },
        demote: {
            title: format(_("Demote $0 pages"), proxy.Name),
            field: `hp-demote-${id}`, button: `hp-demote-button-${id}`, action: _("Demote"),
            label: _("Pages to split"),
            helper: format(_("$0. Free $1 pages are split into $2 pages; $3 are free now."), size, proxy.Name,
                           formatBytes(proxy.DemoteSize), proxy.Free),
            run: () => api.actions.demote(proxy, pages),
        },
        nodes: {
            title: format(_("$0 pages per NUMA node"), proxy.Name),
            field: `hp-node-${id}`, button: `hp-node-button-${id}`, action: _("Set"),
            label: format(_("Pages on node $0"), node),
            helper: format(_("$0. Now $1 pages on node $2."), size, nodeMinimum(node), node),
            run: () => api.actions.setNodePages(proxy, node, pages),
        },
    }[kind];
    const submit = event => {
        event.preventDefault();
        if (error || api.disabled())
            return;
        onClose();
        spec.run();
    };
    return (
        <Modal isOpen variant="small" onClose={onClose} id={`hp-dialog-${kind}-${id}`}
               aria-labelledby={`hp-dialog-${kind}-${id}-title`} elementToFocus={`#${spec.field}`}>
            <ModalHeader title={spec.title} labelId={`hp-dialog-${kind}-${id}-title`} />
            <ModalBody>
                <Form id={`hp-dialog-form-${id}`} onSubmit={submit}>
                    {kind === "nodes" &&
                        <FormGroup label={_("Node")} role="radiogroup" isInline fieldId={`hp-node-select-${id}`}>
                            <ToggleGroup aria-label={_("NUMA node")} id={`hp-node-select-${id}`}>
                                {nodes.map(([n]) =>
                                    <ToggleGroupItem key={n} text={format(_("Node $0"), n)} buttonId={`hp-node-select-${id}-${n}`}
                                                     isSelected={n === node}
                                                     onChange={() => { setNode(n); setValue(nodeMinimum(n)); }} />)}
                            </ToggleGroup>
                        </FormGroup>}
                    <PagesInput id={spec.field} label={spec.label} value={value} onChange={setValue}
                                helper={spec.helper} error={error} warning={warning} />
                </Form>
            </ModalBody>
            <ModalFooter>
                <Button variant="primary" type="submit" form={`hp-dialog-form-${id}`} id={spec.button}
                        isDisabled={Boolean(error) || api.disabled()}>{spec.action}</Button>
                <Button variant="link" onClick={onClose}>{_("Cancel")}</Button>
            </ModalFooter>
        </Modal>
    );
}

function PoolsCard({ api, openDialog }) {
    const proxies = api.sizeProxies();
    const m = api.manager;
    const disabled = api.disabled();
    const resize = api.state.resize;
    const columns = [_("Page size"), _("Total"), _("Free"), _("Reserved"), _("Surplus"), _("Minimum"), _("Target"),
        _("Maximum"), _("Per node")];
    return (
        <HpCard name="pools" title={_("Pools")}>
                {m.valid &&
                    <p className="hp-facts">
                        Memory {formatBytes(m.MemTotal)}, at most {formatBytes(m.PoolMemoryLimit)} in pools;
                        base page {formatBytes(m.BasePageSize)}; NUMA nodes {(m.NumaNodes || []).join(", ")}.
                    </p>}
                {proxies.length === 0
                    ? <EmptyState titleText={_("No huge page pools")} headingLevel="h3" id="hp-pools-empty">
                        <EmptyStateBody>{_("This kernel offers no huge page sizes.")}</EmptyStateBody>
                    </EmptyState>
                    : <Table aria-label={_("Huge page pools")} id="hp-pools-table" variant="compact" gridBreakPoint="grid-lg">
                        <Thead>
                            <Tr>
                                {columns.map(c => <Th key={c}>{c}</Th>)}
                                <Th screenReaderText={_("Progress")} />
                                <Th screenReaderText={_("Actions")} />
                            </Tr>
                        </Thead>
                        <Tbody>
                            {proxies.map(p => {
                                const id = poolId(p.Name);
                                const reserved = Math.min(p.Reserved, p.Free);
                                const nodes = api.records(p.Nodes, ["node", "total", "free", "surplus", "minimum", "target"]);
                                const running = resize && resize.name === p.Name ? resize : null;
                                const items = [
                                    { title: _("Set minimum…"), onClick: () => openDialog({ proxy: p, kind: "minimum" }) },
                                    p.CanOvercommit && { title: _("Set maximum…"), onClick: () => openDialog({ proxy: p, kind: "maximum" }) },
                                    nodes.length > 0 && { title: _("Pages per node…"), onClick: () => openDialog({ proxy: p, kind: "nodes" }) },
                                    p.DemoteSize > 0 && { title: _("Demote…"), onClick: () => openDialog({ proxy: p, kind: "demote" }) },
                                ].filter(Boolean);
                                return (
                                    <Tr key={p.Name} id={`hp-pool-${id}`} data-pool={p.Name}>
                                        <Td dataLabel={columns[0]}>
                                            {p.Name}
                                            {p.IsDefault && <> <Label isCompact color="blue">{_("default")}</Label></>}
                                            {p.Gigantic && <> <Label isCompact color="purple">{_("gigantic")}</Label></>}
                                            <UsageBar id={`hp-bar-${id}`} what={format(_("$0 pool"), p.Name)}
                                                      counts={{ used: p.Total - p.Free, reserved, free: p.Free - reserved, surplus: p.Surplus }} />
                                        </Td>
                                        <Td dataLabel={columns[1]}><span className="hp-total">{p.Total}</span></Td>
                                        <Td dataLabel={columns[2]}><span className="hp-free">{p.Free}</span></Td>
                                        <Td dataLabel={columns[3]}>{p.Reserved}</Td>
                                        <Td dataLabel={columns[4]}>{p.Surplus}</Td>
                                        <Td dataLabel={columns[5]}><span className="hp-minimum">{p.Minimum}</span></Td>
                                        <Td dataLabel={columns[6]}><span className="hp-target" title={format(_("Base $0 plus the claims"), p.Base)}>{p.Target}</span></Td>
                                        <Td dataLabel={columns[7]}><span className="hp-maximum">{p.Maximum}</span></Td>
                                        <Td dataLabel={columns[8]}>
                                            {nodes.map(([node, total, free, surplus, , target]) =>
                                                <div key={node} className="hp-node" data-node={node}>
                                                    {surplus
                                                        ? format(_("node $0: $1 ($2 free, $3 surplus)"), node, total, free, surplus)
                                                        : format(_("node $0: $1 ($2 free)"), node, total, free)}
                                                    {target > 0 &&
                                                        <>, <span className="hp-node-target" title={_("The node's configured pages plus the claims on it")}>
                                                            {format(_("target $0"), target)}
                                                        </span></>}
                                                    <UsageBar id={`hp-bar-${id}-${node}`} what={format(_("$0 pages on node $1"), p.Name, node)}
                                                              counts={{ used: total - free, free, surplus }} />
                                                </div>)}
                                        </Td>
                                        <Td dataLabel={_("Progress")}>
                                            {running &&
                                                <Progress id={`hp-progress-${id}`} data-phase={running.phase} size={ProgressSize.sm}
                                                          value={running.achieved} min={0} max={Math.max(1, running.target)}
                                                          title={format(_("$0 of $1 pages ($2)"), running.achieved, running.target, running.phase)}
                                                          valueText={format(_("$0 of $1 pages ($2)"), running.achieved, running.target, running.phase)}
                                                          measureLocation="none" />}
                                        </Td>
                                        <Td isActionCell>
                                            <Kebab id={`hp-pool-actions-${id}`} label={format(_("Actions of the $0 pool"), p.Name)}
                                                   items={items} isDisabled={disabled} />
                                        </Td>
                                    </Tr>
                                );
                            })}
                        </Tbody>
                    </Table>}
            {proxies.length > 0 &&
                <Gallery hasGutter minWidths={{ default: "100%", md: "20rem" }} className="hp-charts">
                    {proxies.map(p => <PoolChart key={p.Name} api={api} proxy={p} />)}
                </Gallery>}
        </HpCard>
    );
}

/* A pool's pages over the last minutes (index.js records them from the
 * PropertiesChanged stream): the total as a line, the pages in use as an
 * area below it, as steps, since the kernel's counts change in jumps. Its
 * label says the same in words. */
function PoolChart({ api, proxy }) {
    const points = api.history[proxy.Name] || [];
    const now = Date.now();
    const start = now - api.HISTORY_MS;
    const W = 300, H = 80;
    const max = Math.max(1, ...points.map(p => p.total));
    const x = t => (Math.max(t, start) - start) / api.HISTORY_MS * W;
    const y = v => H - (v / max) * (H - 4);
    const steps = key => points.map((p, i) => (i
        ? `H${x(p.t).toFixed(1)} V${y(p[key]).toFixed(1)}`
        : `M${x(p.t).toFixed(1)} ${y(p[key]).toFixed(1)}`)).join(" ") + ` H${W}`;
    const id = poolId(proxy.Name);
    const last = points[points.length - 1];
    const minutes = Math.round(api.HISTORY_MS / 60000);
    const label = last
        ? format(_("$0 pool over the last $1 minutes: $2 samples; now $3 pages, $4 in use; at most $5"),
                 proxy.Name, minutes, points.length, last.total, last.used, max)
        : format(_("$0 pool: no samples yet"), proxy.Name);
    return (
        <figure className="hp-chart" id={`hp-chart-${id}`} data-samples={points.length}
                data-last-total={last ? last.total : ""}>
            <figcaption>{format(_("$0 pool, last $1 minutes"), proxy.Name, minutes)}</figcaption>
            <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={label}>
                {points.length > 0 && <>
                    <path className="hp-chart-used" d={`${steps("used")} V${H} H${x(points[0].t).toFixed(1)} Z`} />
                    <path className="hp-chart-total" d={steps("total")} />
                </>}
            </svg>
            <div className="hp-chart-legend" aria-hidden="true">
                <span className="hp-chart-key-total" /> {_("Total")} <span className="hp-chart-key-used" /> {_("In use")}
                {" · "}{format(_("scale 0 to $0 pages"), max)}
            </div>
        </figure>
    );
}

/* --- the summary: one card per subject, each opening to its details --- */

const VIEWS = [
    ["pools", _("Pools")], ["explain", _("Checks")], ["claims", _("Claims")], ["mounts", _("Mounts")],
    ["tunables", _("Tunables")], ["usage", _("Who uses huge pages")], ["config", _("Configuration")],
];
const viewTitle = view => VIEWS.find(([name]) => name === view)[1];

function SummaryCard({ name, title, children }) {
    return (
        <Card isClickable id={`hp-summary-${name}`} className="hp-summary-card">
            <CardHeader selectableActions={{
                onClickAction: () => cockpit.location.go([name]),
                selectableActionId: `hp-open-${name}`,
                selectableActionAriaLabelledby: `hp-summary-${name}-title`,
            }}>
                <CardTitle><h2 id={`hp-summary-${name}-title`} className="pf-v6-c-card__title-text">{title}</h2></CardTitle>
            </CardHeader>
            <CardBody>{children}</CardBody>
        </Card>
    );
}

function Summary({ api }) {
    const { state, manager: m } = api;
    const valid = m.valid;
    const findings = state.explain || [];
    const bySeverity = s => findings.filter(e => e[0] === s).length;
    const drift = valid ? (m.Drift || []).length : 0;
    const dropIn = valid ? bootDropIn(m) : null;
    const thp = valid && m.ThpSettings && m.ThpSettings.enabled ? m.ThpSettings.enabled[0] : null;
    return (
        <Gallery hasGutter minWidths={{ default: "100%", md: "20rem" }} id="hp-summary">
            <SummaryCard name="pools" title={viewTitle("pools")}>
                {api.sizeProxies().map(p => {
                    const reserved = Math.min(p.Reserved, p.Free);
                    return (
                        <div key={p.Name} className="hp-summary-pool">
                            {p.Name}: {format(_("$0, $1 free"), ngettext("$0 page", "$0 pages", p.Total), p.Free)}
                            <UsageBar id={`hp-summary-bar-${poolId(p.Name)}`} what={format(_("$0 pool"), p.Name)}
                                      counts={{ used: p.Total - p.Free, reserved, free: p.Free - reserved, surplus: p.Surplus }} />
                        </div>
                    );
                })}
            </SummaryCard>
            <SummaryCard name="explain" title={viewTitle("explain")}>
                {state.explain === null
                    ? _("Checking…")
                    : findings.length === 0
                        ? _("Nothing to report")
                        : [ngettext("$0 error", "$0 errors", bySeverity("error")),
                            ngettext("$0 warning", "$0 warnings", bySeverity("warning")),
                            ngettext("$0 note", "$0 notes", bySeverity("info"))].join(", ")}
            </SummaryCard>
            <SummaryCard name="claims" title={viewTitle("claims")}>
                {valid ? ngettext("$0 claim", "$0 claims", (m.Claims || []).length) : ""}
            </SummaryCard>
            <SummaryCard name="mounts" title={viewTitle("mounts")}>
                {valid ? ngettext("$0 hugetlbfs mount", "$0 hugetlbfs mounts", (m.Mounts || []).length) : ""}
            </SummaryCard>
            <SummaryCard name="tunables" title={viewTitle("tunables")}>
                {thp && <>{format(_("Transparent huge pages: $0"), thp)}<br /></>}
                {valid && <>vm.min_free_kbytes: {m.MinFreeKbytes}</>}
            </SummaryCard>
            <SummaryCard name="usage" title={viewTitle("usage")}>
                {state.usage ? _("Scanned") : _("Processes, files and segments: scan to see")}
            </SummaryCard>
            <SummaryCard name="config" title={viewTitle("config")}>
                {valid && <>
                    {ngettext("$0 setting", "$0 settings", (m.ConfiguredState || []).length)}
                    {drift > 0 && <>, <Label isCompact color="orange">{format(_("$0 with drift"), drift)}</Label></>}
                    {m.RebootRequired && <> <Label isCompact color="orange">{_("reboot required")}</Label></>}
                    {dropIn && !dropIn.upToDate &&
                        <> <Label isCompact color="orange" id="hp-summary-dropin-stale">{_("boot loader file not up to date")}</Label></>}
                </>}
            </SummaryCard>
        </Gallery>
    );
}

const DETAILS = {
    pools: PoolsCard, explain: ExplainCard, claims: ClaimsCard, mounts: MountsCard,
    tunables: TunablesCard, usage: UsageCard, config: ConfigCard,
};

function App({ api }) {
    useSyncExternalStore(api.subscribe, api.version);
    const [dialog, setDialog] = useState(null);
    const { state, manager } = api;
    const disabled = api.disabled();
    /* cockpit.location: #/ is the summary, #/pools and the like a card */
    const view = cockpit.location.path[0] || "";
    const Details = DETAILS[view] || null;
    useEffect(() => { document.getElementById("app").removeAttribute("aria-busy"); }, []);
    return (
        <>
            <PageSection>
                <Title headingLevel="h1" size="2xl">{_("Huge pages")}</Title>
                <p id="hp-version">{manager.valid && manager.Version ? `hugepagesd ${manager.Version}` : ""}</p>
                <div id="hp-status">
                    {state.unavailable &&
                        <Alert isInline variant="danger" id="hp-unavailable" data-severity="danger" role="alert"
                               title={_("The huge pages service is not available")}>{state.unavailable}</Alert>}
                    {state.limited &&
                        <Alert isInline variant="warning" id="hp-readonly" data-severity="warning" role="status"
                               title={_("Read only: changes are not allowed in this session")}>{state.limited}</Alert>}
                    {state.notice &&
                        <Alert isInline variant={state.notice.severity} id="hp-notice" data-severity={state.notice.severity}
                               role={state.notice.severity === "danger" ? "alert" : "status"}
                               title={state.notice.title}>{state.notice.body}</Alert>}
                    <Checkbox id="hp-persist" className="hp-persist" isChecked={state.persist} isDisabled={disabled}
                              onChange={(_ev, checked) => api.setPersist(checked)}
                              label={_("Keep changes after reboot (saved in /etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf)")} />
                </div>
            </PageSection>
            <PageSection className="hp-cards">
                {Details
                    ? <>
                        <Breadcrumb id="hp-breadcrumb">
                            <BreadcrumbItem>
                                <Button variant="link" isInline id="hp-back" onClick={() => cockpit.location.go([])}>{_("Huge pages")}</Button>
                            </BreadcrumbItem>
                            <BreadcrumbItem isActive>{viewTitle(view)}</BreadcrumbItem>
                        </Breadcrumb>
                        <Details api={api} openDialog={setDialog} />
                    </>
                    : <Summary api={api} />}
            </PageSection>
            {dialog && <PoolDialog api={api} dialog={dialog} onClose={() => setDialog(null)} />}
        </>
    );
}

export function mountApp(element, api) {
    createRoot(element).render(<App api={api} />);
}
