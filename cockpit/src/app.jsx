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
import { ClaimsCard, ConfigCard, ExplainCard, HpCard, Kebab, MountsCard, TunablesCard, UsageCard } from "./cards.jsx";

/* An id from a pool's name ("2MB"), as the tests and labels use it */
const poolId = name => name.replace(/[^A-Za-z0-9]/g, "");

/* A stacked bar of a pool's (or a node's) pages: in use, reserved, free,
 * with the surplus pages as a strip below; the numbers are its label and
 * its legend, so nothing is told by colour alone. Widths go through the
 * CSSOM (React's style property): the page's CSP refuses style attributes. */
function UsageBar({ id, what, counts }) {
    const total = counts.used + (counts.reserved || 0) + counts.free;
    const parts = [["used", "in use"], ["reserved", "reserved"], ["free", "free"]]
            .filter(([key]) => counts[key] !== undefined);
    const words = [...parts.map(([key, word]) => `${counts[key]} ${word}`), `${counts.surplus} surplus`];
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
                         inputAriaLabel={label} minusBtnAriaLabel={`${label}: one less`}
                         plusBtnAriaLabel={`${label}: one more`}
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
        : kind === "maximum" ? proxy.Maximum : nodeMinimum(node);
    const [value, setValue] = useState(String(start));
    const error = pagesError(value);
    const pages = error ? 0 : Number(value);
    const limitPages = Math.floor(api.manager.PoolMemoryLimit / proxy.Size);
    const warning = !error && pages > limitPages
        ? `More than the ${limitPages} pages that the pool memory limit (${formatBytes(api.manager.PoolMemoryLimit)}) allows; the service will refuse it`
        : null;
    const size = !error ? `${formatBytes(pages * proxy.Size)} of memory` : "";
    const spec = {
        minimum: {
            title: `Resize the ${proxy.Name} pool`,
            field: `hp-resize-${id}`, button: `hp-resize-button-${id}`, action: "Set minimum",
            label: "Minimum pages",
            helper: `${size}. Now ${proxy.Total} pages; the base is ${proxy.Base}, the claims add ${proxy.Target - proxy.Base}.`,
            run: () => api.actions.resizePool(proxy, pages),
        },
        maximum: {
            title: `The ${proxy.Name} pool's maximum`,
            field: `hp-max-${id}`, button: `hp-max-button-${id}`, action: "Set maximum",
            label: "Maximum pages",
            helper: `${size}. The pool may grow to this with surplus pages; now ${proxy.Maximum}.`,
            run: () => api.actions.setMaximum(proxy, pages),
        },
        nodes: {
            title: `${proxy.Name} pages per NUMA node`,
            field: `hp-node-${id}`, button: `hp-node-button-${id}`, action: "Set",
            label: `Pages on node ${node}`,
            helper: `${size}. Now ${nodeMinimum(node)} pages on node ${node}.`,
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
                        <FormGroup label="Node" role="radiogroup" isInline fieldId={`hp-node-select-${id}`}>
                            <ToggleGroup aria-label="NUMA node" id={`hp-node-select-${id}`}>
                                {nodes.map(([n]) =>
                                    <ToggleGroupItem key={n} text={`Node ${n}`} buttonId={`hp-node-select-${id}-${n}`}
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
                <Button variant="link" onClick={onClose}>Cancel</Button>
            </ModalFooter>
        </Modal>
    );
}

function PoolsCard({ api, openDialog }) {
    const proxies = api.sizeProxies();
    const m = api.manager;
    const disabled = api.disabled();
    const resize = api.state.resize;
    const columns = ["Page size", "Total", "Free", "Reserved", "Surplus", "Minimum", "Target", "Maximum", "Per node"];
    return (
        <HpCard name="pools" title="Pools">
                {m.valid &&
                    <p className="hp-facts">
                        Memory {formatBytes(m.MemTotal)}, at most {formatBytes(m.PoolMemoryLimit)} in pools;
                        base page {formatBytes(m.BasePageSize)}; NUMA nodes {(m.NumaNodes || []).join(", ")}.
                    </p>}
                {proxies.length === 0
                    ? <EmptyState titleText="No huge page pools" headingLevel="h3" id="hp-pools-empty">
                        <EmptyStateBody>This kernel offers no huge page sizes.</EmptyStateBody>
                    </EmptyState>
                    : <Table aria-label="Huge page pools" id="hp-pools-table" variant="compact" gridBreakPoint="grid-lg">
                        <Thead>
                            <Tr>
                                {columns.map(c => <Th key={c}>{c}</Th>)}
                                <Th screenReaderText="Progress" />
                                <Th screenReaderText="Actions" />
                            </Tr>
                        </Thead>
                        <Tbody>
                            {proxies.map(p => {
                                const id = poolId(p.Name);
                                const reserved = Math.min(p.Reserved, p.Free);
                                const nodes = api.records(p.Nodes, ["node", "total", "free", "surplus", "minimum"]);
                                const running = resize && resize.name === p.Name ? resize : null;
                                const items = [
                                    { title: "Set minimum…", onClick: () => openDialog({ proxy: p, kind: "minimum" }) },
                                    p.CanOvercommit && { title: "Set maximum…", onClick: () => openDialog({ proxy: p, kind: "maximum" }) },
                                    nodes.length > 0 && { title: "Pages per node…", onClick: () => openDialog({ proxy: p, kind: "nodes" }) },
                                ].filter(Boolean);
                                return (
                                    <Tr key={p.Name} id={`hp-pool-${id}`} data-pool={p.Name}>
                                        <Td dataLabel="Page size">
                                            {p.Name}
                                            {p.IsDefault && <> <Label isCompact color="blue">default</Label></>}
                                            {p.Gigantic && <> <Label isCompact color="purple">gigantic</Label></>}
                                            <UsageBar id={`hp-bar-${id}`} what={`${p.Name} pool`}
                                                      counts={{ used: p.Total - p.Free, reserved, free: p.Free - reserved, surplus: p.Surplus }} />
                                        </Td>
                                        <Td dataLabel="Total"><span className="hp-total">{p.Total}</span></Td>
                                        <Td dataLabel="Free"><span className="hp-free">{p.Free}</span></Td>
                                        <Td dataLabel="Reserved">{p.Reserved}</Td>
                                        <Td dataLabel="Surplus">{p.Surplus}</Td>
                                        <Td dataLabel="Minimum"><span className="hp-minimum">{p.Minimum}</span></Td>
                                        <Td dataLabel="Target"><span className="hp-target" title={`Base ${p.Base} plus the claims`}>{p.Target}</span></Td>
                                        <Td dataLabel="Maximum"><span className="hp-maximum">{p.Maximum}</span></Td>
                                        <Td dataLabel="Per node">
                                            {nodes.map(([node, total, free, surplus]) =>
                                                <div key={node} className="hp-node" data-node={node}>
                                                    node {node}: {total} ({free} free{surplus ? `, ${surplus} surplus` : ""})
                                                    <UsageBar id={`hp-bar-${id}-${node}`} what={`${p.Name} pages on node ${node}`}
                                                              counts={{ used: total - free, free, surplus }} />
                                                </div>)}
                                        </Td>
                                        <Td dataLabel="Progress">
                                            {running &&
                                                <Progress id={`hp-progress-${id}`} data-phase={running.phase} size={ProgressSize.sm}
                                                          value={running.achieved} min={0} max={Math.max(1, running.target)}
                                                          title={`${running.achieved} of ${running.target} pages (${running.phase})`}
                                                          valueText={`${running.achieved} of ${running.target} pages (${running.phase})`}
                                                          measureLocation="none" />}
                                        </Td>
                                        <Td isActionCell>
                                            <Kebab id={`hp-pool-actions-${id}`} label={`Actions of the ${p.Name} pool`}
                                                   items={items} isDisabled={disabled} />
                                        </Td>
                                    </Tr>
                                );
                            })}
                        </Tbody>
                    </Table>}
        </HpCard>
    );
}

/* --- the summary: one card per subject, each opening to its details --- */

const VIEWS = [
    ["pools", "Pools"], ["explain", "Checks"], ["claims", "Claims"], ["mounts", "Mounts"],
    ["tunables", "Tunables"], ["usage", "Who uses huge pages"], ["config", "Configuration"],
];

function count(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
}

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
    const thp = valid && m.ThpSettings && m.ThpSettings.enabled ? m.ThpSettings.enabled[0] : null;
    return (
        <Gallery hasGutter minWidths={{ default: "100%", md: "20rem" }} id="hp-summary">
            <SummaryCard name="pools" title="Pools">
                {api.sizeProxies().map(p => {
                    const reserved = Math.min(p.Reserved, p.Free);
                    return (
                        <div key={p.Name} className="hp-summary-pool">
                            {p.Name}: {count(p.Total, "page", "pages")}, {p.Free} free
                            <UsageBar id={`hp-summary-bar-${poolId(p.Name)}`} what={`${p.Name} pool`}
                                      counts={{ used: p.Total - p.Free, reserved, free: p.Free - reserved, surplus: p.Surplus }} />
                        </div>
                    );
                })}
            </SummaryCard>
            <SummaryCard name="explain" title="Checks">
                {state.explain === null
                    ? "Checking…"
                    : findings.length === 0
                        ? "Nothing to report"
                        : `${count(bySeverity("error"), "error", "errors")}, ${count(bySeverity("warning"), "warning", "warnings")}, ` +
                          `${count(bySeverity("info"), "note", "notes")}`}
            </SummaryCard>
            <SummaryCard name="claims" title="Claims">
                {valid ? count((m.Claims || []).length, "claim", "claims") : ""}
            </SummaryCard>
            <SummaryCard name="mounts" title="Mounts">
                {valid ? count((m.Mounts || []).length, "hugetlbfs mount", "hugetlbfs mounts") : ""}
            </SummaryCard>
            <SummaryCard name="tunables" title="Tunables">
                {thp && <>Transparent huge pages: {thp}<br /></>}
                {valid && <>vm.min_free_kbytes: {m.MinFreeKbytes}</>}
            </SummaryCard>
            <SummaryCard name="usage" title="Who uses huge pages">
                {state.usage ? "Scanned" : "Processes, files and segments: scan to see"}
            </SummaryCard>
            <SummaryCard name="config" title="Configuration">
                {valid && <>
                    {count((m.ConfiguredState || []).length, "setting", "settings")}
                    {drift > 0 && <>, <Label isCompact color="orange">{drift} with drift</Label></>}
                    {m.RebootRequired && <> <Label isCompact color="orange">reboot required</Label></>}
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
                <Title headingLevel="h1" size="2xl">Huge pages</Title>
                <p id="hp-version">{manager.valid && manager.Version ? `hugepagesd ${manager.Version}` : ""}</p>
                <div id="hp-status">
                    {state.unavailable &&
                        <Alert isInline variant="danger" id="hp-unavailable" data-severity="danger" role="alert"
                               title="The huge pages service is not available">{state.unavailable}</Alert>}
                    {state.limited &&
                        <Alert isInline variant="warning" id="hp-readonly" data-severity="warning" role="status"
                               title="Read only: changes are not allowed in this session">{state.limited}</Alert>}
                    {state.notice &&
                        <Alert isInline variant={state.notice.severity} id="hp-notice" data-severity={state.notice.severity}
                               role={state.notice.severity === "danger" ? "alert" : "status"}
                               title={state.notice.title}>{state.notice.body}</Alert>}
                    <Checkbox id="hp-persist" className="hp-persist" isChecked={state.persist} isDisabled={disabled}
                              onChange={(_ev, checked) => api.setPersist(checked)}
                              label="Keep changes after reboot (saved in /etc/hugepagesd/hugepagesd.conf.d/90-persisted.conf)" />
                </div>
            </PageSection>
            <PageSection className="hp-cards">
                {Details
                    ? <>
                        <Breadcrumb id="hp-breadcrumb">
                            <BreadcrumbItem>
                                <Button variant="link" isInline id="hp-back" onClick={() => cockpit.location.go([])}>Huge pages</Button>
                            </BreadcrumbItem>
                            <BreadcrumbItem isActive>{VIEWS.find(([name]) => name === view)[1]}</BreadcrumbItem>
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
