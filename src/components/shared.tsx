// The small parts every view of the panel and the confirmation dialog's body are made of: class
// names, code, the service's text, translated sentences around elements, sections, facts,
// disclosures, who must act and times in the reader's locale.
import { Time } from '@jupyterlab/coreutils';
import * as React from 'react';
import type { DisclosureMemory } from '../disclosures';
import { ITranslationBundle, StartupProjection } from '../tokens';

/** What the panel's buttons do. */
export interface IPanelActions {
  refresh(): void;
  initialize(): void;
  /** Copies the plain-text report for the site's administrator (admin-report.ts). */
  copyReport(): void;
  /** Copies a command to the clipboard. */
  copyText(text: string): void;
}

/** data-action values of the panel's buttons (the browser tests find them by it). */
export const ACTION_REFRESH = 'refresh';
export const ACTION_INITIALIZE = 'initialize';
export const ACTION_COPY_REPORT = 'copy-report';
export const ACTION_COPY_COMMAND = 'copy-command';
export const ACTION_CHECK_AGAIN = 'check-again';

/** Which disclosure sections are open; without one, every section starts closed. */
export const DisclosureContext = React.createContext<DisclosureMemory | null>(
  null
);

export const CLASS_PREFIX = 'jp-ProjectStartup';

export type Trans = ITranslationBundle;

export function cls(...names: string[]): string {
  return names
    .map(n => (n.startsWith('jp-') ? n : `${CLASS_PREFIX}-${n}`))
    .join(' ');
}

export function Code(props: { children: string }): JSX.Element {
  return <code className={cls('code')}>{props.children}</code>;
}

/**
 * Text from the service, where `backticks` mark a command or a path: shown as code, never as
 * markup (React renders every piece as text).
 */
export function ServiceText(props: { text: string }): JSX.Element {
  const pieces = props.text.split('`');
  return (
    <>
      {pieces.map((piece, i) => {
        if (piece === '') {
          return null;
        }
        // Odd pieces lie between a pair of backticks; a lone trailing backtick stays literal.
        const quoted = i % 2 === 1 && i < pieces.length - 1;
        return quoted ? (
          <Code key={i}>{piece}</Code>
        ) : (
          <React.Fragment key={i}>
            {i % 2 === 1 ? `\`${piece}` : piece}
          </React.Fragment>
        );
      })}
    </>
  );
}

/** Stands in for an element inside a translated sentence (see WithNodes). */
export const MARK = '\u0001';

/** A translated sentence whose MARK arguments become the given elements, in order. */
export function WithNodes(props: {
  text: string;
  nodes: React.ReactNode[];
}): JSX.Element {
  const parts = props.text.split(MARK);
  return (
    <>
      {parts.map((part, i) => (
        <React.Fragment key={i}>
          {part}
          {i < parts.length - 1 ? props.nodes[i] : null}
        </React.Fragment>
      ))}
    </>
  );
}

/** A section with a heading that names it for assistive technology. */
export function Section(props: {
  className: string;
  heading: string;
  children?: React.ReactNode;
}): JSX.Element {
  const id = `${CLASS_PREFIX}-${props.className}-${React.useId().replace(/:/g, '')}`;
  return (
    <section className={cls('section', props.className)} aria-labelledby={id}>
      <h3 id={id} className={cls('sectionTitle')}>
        {props.heading}
      </h3>
      {props.children}
    </section>
  );
}

/**
 * A table's horizontal scroller: a narrow panel (split beside the Launcher) may scroll a wide
 * table, so the scroller takes the keyboard focus and is named, as WCAG's 2.1.1 asks.
 */
export function TableScroll(props: {
  label: string;
  children: React.ReactNode;
}): JSX.Element {
  return (
    <div
      className={cls('tableScroll')}
      tabIndex={0}
      role="region"
      aria-label={props.label}
    >
      {props.children}
    </div>
  );
}

/** A description list of label / value rows. */
export function Facts(props: {
  rows: [string, React.ReactNode][];
}): JSX.Element {
  return (
    <dl className={cls('facts')}>
      {props.rows.map(([term, value]) => (
        <div key={term} className={cls('fact')}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Items as separate text nodes with separators, so each stays a translated unit. */
export function listOf(items: string[]): React.ReactNode[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [', ', item]));
}

export function yesNo(value: boolean, trans: Trans): string {
  return value ? trans.__('Yes') : trans.__('No');
}

export function platformLabel(projection: StartupProjection): string {
  return projection.manifest?.platform.label ?? projection.platform;
}

/**
 * A section one click away: the native <details> with JupyterLab's look, its summary the one
 * heading of what it holds, open or closed as the person left it (DisclosureMemory).
 */
export function Disclosure(props: {
  id: string;
  summary: string;
  children?: React.ReactNode;
}): JSX.Element {
  const memory = React.useContext(DisclosureContext);
  const [, rerender] = React.useReducer((n: number) => n + 1, 0);
  React.useEffect(() => {
    if (!memory) {
      return;
    }
    memory.changed.connect(rerender);
    return () => {
      memory.changed.disconnect(rerender);
    };
  }, [memory]);
  const open = memory?.isOpen(props.id) ?? false;
  return (
    <details
      className={cls('disclosure')}
      data-disclosure={props.id}
      open={open}
      onToggle={event => {
        const now = (event.currentTarget as HTMLDetailsElement).open;
        if (now !== open) {
          memory?.setOpen(props.id, now);
        }
      }}
    >
      <summary className={cls('disclosureSummary')}>
        <h3 className={cls('disclosureTitle')}>{props.summary}</h3>
      </summary>
      <div className={cls('disclosureBody')}>{props.children}</div>
    </details>
  );
}

/** Who must act: the person, or the site's administrator. */
export type Actor = 'user' | 'administrator';

/** A time in the reader's locale and time zone: relative, with the full date as its title. */
export function When(props: { iso: string }): JSX.Element {
  return (
    <time dateTime={props.iso} title={Time.format(props.iso)}>
      {Time.formatHuman(props.iso)}
    </time>
  );
}
