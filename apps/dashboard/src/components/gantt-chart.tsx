/**
 * Validity windows as a Gantt chart, drawn with Apache ECharts (a custom series on a time axis).
 * Only the parts of ECharts the chart uses are bundled, and only the timeline view imports this
 * module, so the library loads with that view and not before.
 */
import { useEffect, useRef, useState } from 'react';
import { CustomChart, type CustomSeriesOption } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { formatDateTime } from '../format.ts';
import type { TimelineFact } from '../types.ts';

echarts.use([CustomChart, GridComponent, TooltipComponent, DataZoomComponent, LegendComponent, MarkLineComponent, CanvasRenderer]);

/** Distinct hues that keep 3:1 contrast against white (WCAG non-text contrast). */
const PALETTE = ['#1d4ed8', '#b45309', '#047857', '#b91c1c', '#6d28d9', '#0e7490', '#be185d', '#4d7c0f', '#9a3412', '#475569'];
const MAX_VISIBLE_ROWS = 30;
/** Phones (as in styles.css): each row's label gets the chart's full width, on its own lines above the bar. */
const NARROW = '(max-width: 640px)';
/** Labels wrap at words onto at most two lines (rows that start alike stay distinguishable). */
const LABEL_LINE_HEIGHT = 14;
const LABEL_LINES = 2;
const LAYOUT = {
  wide: { rowHeight: 36, grid: { left: 336, right: 24, top: 40, bottom: 64 }, labelWidth: 320 },
  // A row is two label lines above the band's middle and the bar below it.
  // The grid is not shrunk to fit axis labels ('none'): the row labels lie inside it by design, and
  // their width is the grid's.
  // Margins hold half a time label at either end.
  narrow: { rowHeight: 60, grid: { left: 24, right: 20, top: 40, bottom: 64, outerBoundsMode: 'none' as const }, labelWidth: 0 },
};

export interface GanttRow {
  lineage_id: string;
  scope: string;
  label: string;
  windows: TimelineFact[];
}

/** One row per lineage (a fact and the versions that replaced it), grouped by scope. */
export function ganttRows(facts: TimelineFact[]): GanttRow[] {
  const byLineage = new Map<string, TimelineFact[]>();
  for (const fact of facts) byLineage.set(fact.lineage_id, [...(byLineage.get(fact.lineage_id) ?? []), fact]);
  const rows = [...byLineage.entries()].map(([lineage_id, windows]) => {
    windows.sort((a, b) => a.valid_from.localeCompare(b.valid_from));
    const latest = windows.at(-1)!;
    return { lineage_id, scope: latest.scope, label: latest.content, windows };
  });
  return rows.sort((a, b) => a.scope.localeCompare(b.scope) || a.windows[0]!.valid_from.localeCompare(b.windows[0]!.valid_from));
}

type Datum = [row: number, start: number, end: number, current: 0 | 1, index: number];

/** Whether the screen is phone-sized, following changes (a rotated phone, a resized window). */
function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const query = window.matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return narrow;
}

export function GanttChart({ rows }: { rows: GanttRow[] }) {
  const container = useRef<HTMLDivElement>(null);
  const narrow = useNarrow();
  const layout = narrow ? LAYOUT.narrow : LAYOUT.wide;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    // Open windows (still current) end at the moment of drawing.
    const now = Date.now();
    const chart = echarts.init(element, undefined, { renderer: 'canvas' });
    const scopes = [...new Set(rows.map((r) => r.scope))];
    const windows: TimelineFact[] = [];
    const seriesData = new Map<string, Datum[]>(scopes.map((s) => [s, []]));
    rows.forEach((row, rowIndex) => {
      for (const w of row.windows) {
        const end = w.valid_until ? new Date(w.valid_until).getTime() : now;
        seriesData.get(row.scope)!.push([rowIndex, new Date(w.valid_from).getTime(), end, w.valid_until ? 0 : 1, windows.length]);
        windows.push(w);
      }
    });
    const { grid } = narrow ? LAYOUT.narrow : LAYOUT.wide;
    // Narrow: from the label's start (4 px into the grid) to 6 px short of the chart's right edge.
    const labelWidth = () => (narrow ? Math.max(120, element.clientWidth - grid.left - 4 - 6) : LAYOUT.wide.labelWidth);
    const excerpt = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

    const series: CustomSeriesOption[] = scopes.map((scope, i) => ({
      type: 'custom',
      name: scope,
      color: PALETTE[i % PALETTE.length],
      encode: { x: [1, 2], y: 0 },
      data: seriesData.get(scope),
      renderItem: (params, api) => {
        const row = api.value(0);
        const start = api.coord([api.value(1), row]);
        const end = api.coord([api.value(2), row]);
        const band = (api.size?.([0, 1]) as number[])[1]!;
        // Wide: the bar in the middle of its row. Narrow: below the middle, under the label.
        const height = narrow ? band * 0.28 : band * 0.6;
        const top = narrow ? start[1]! + 3 : start[1]! - height / 2;
        const coordSys = params.coordSys as unknown as { x: number; y: number; width: number; height: number };
        const shape = echarts.graphic.clipRectByRect(
          { x: start[0]!, y: top, width: Math.max(end[0]! - start[0]!, 3), height },
          { x: coordSys.x, y: coordSys.y, width: coordSys.width, height: coordSys.height },
        );
        if (!shape) return null;
        const current = api.value(3) === 1;
        return {
          type: 'rect',
          transition: ['shape'],
          shape: { ...shape, r: 3 },
          style: { fill: api.visual('color') as string, opacity: current ? 1 : 0.4, stroke: current ? undefined : (api.visual('color') as string), lineWidth: 1 },
        };
      },
      ...(i === 0
        ? {
            markLine: {
              silent: true,
              symbol: 'none',
              // The y axis is inverted, so the line's start is its top end.
              label: { formatter: 'now', color: '#334155', position: 'start' },
              lineStyle: { type: 'dashed', color: '#475569' },
              data: [{ xAxis: now }],
            },
          }
        : {}),
    }));

    chart.setOption({
      animation: false,
      textStyle: { fontFamily: 'system-ui, sans-serif', color: '#1e293b' },
      legend: { type: 'scroll', top: 0, textStyle: { color: '#1e293b' } },
      grid,
      tooltip: {
        renderMode: 'richText',
        formatter: (p: unknown) => {
          const datum = (p as { value: Datum }).value;
          const w = windows[datum[4]]!;
          return [
            excerpt(w.content, 90),
            `${w.scope} · ${w.agent_id}`,
            `${formatDateTime(w.valid_from)} → ${w.valid_until ? formatDateTime(w.valid_until) : 'still current'}`,
          ].join('\n');
        },
      },
      xAxis: {
        type: 'time',
        // The first and last times stay within the chart (the narrow grid has no margin for them).
        axisLabel: { color: '#334155', hideOverlap: true, alignMinLabel: 'left', alignMaxLabel: 'right' },
        splitLine: { show: true, lineStyle: { color: '#e2e8f0' } },
      },
      yAxis: {
        type: 'category',
        inverse: true,
        data: rows.map((r) => r.label),
        axisTick: { show: false },
        axisLabel: {
          color: '#1e293b',
          // Every row's label, in full up to two lines (wrapped at words).
          interval: 0,
          width: labelWidth(),
          overflow: 'break',
          lineHeight: LABEL_LINE_HEIGHT,
          height: LABEL_LINE_HEIGHT * LABEL_LINES,
          lineOverflow: 'truncate',
          ...(narrow ? { inside: true, margin: 4, align: 'left', verticalAlign: 'bottom' } : {}),
        },
      },
      dataZoom: [
        { type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', bottom: 12, height: 22, labelFormatter: '' },
        { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' },
        ...(rows.length > MAX_VISIBLE_ROWS
          ? [{ type: 'slider' as const, yAxisIndex: 0, right: 0, width: 14, startValue: 0, endValue: MAX_VISIBLE_ROWS - 1, zoomLock: true, filterMode: 'weakFilter' as const, showDetail: false }]
          : []),
      ],
      series,
    });
    const observer = new ResizeObserver(() => {
      chart.resize();
      if (narrow) chart.setOption({ yAxis: { axisLabel: { width: labelWidth() } } });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.dispose();
    };
  }, [rows, narrow]);

  const visibleRows = Math.min(rows.length, MAX_VISIBLE_ROWS);
  const windowCount = rows.reduce((n, r) => n + r.windows.length, 0);
  return (
    <div
      ref={container}
      className="gantt"
      role="img"
      aria-label={`Gantt chart: ${windowCount} validity windows of ${rows.length} facts across ${new Set(rows.map((r) => r.scope)).size} scopes. The same data is listed in the table below.`}
      style={{ height: `${visibleRows * layout.rowHeight + 120}px` }}
    />
  );
}
