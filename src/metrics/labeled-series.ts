/**
 * Counters and histograms for the hot paths. prom-client's label children hash their label set
 * on every increment (about a microsecond each); these keep one plain object per label set, made
 * once, so that counting a request or a watch event is a few additions. They export through the
 * same registry and text format (prom-client reads any object with name, help, type and get()).
 */
type Labels = Record<string, string>;

/** What prom-client's registry reads from a metric to print it. */
interface Exported {
  name: string;
  help: string;
  type: string;
  aggregator: "sum";
  values: Array<{ metricName?: string; labels: Labels; value: number }>;
}

export interface CounterSeries {
  readonly labels: Labels;
  value: number;
}

export interface HistogramSeries {
  readonly labels: Labels;
  /** Per-bucket (not cumulative) counts; the last one is +Inf. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

abstract class Labeled<S> {
  private readonly byKey = new Map<string, S>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  /** The series of a label set (made on first use); keep it to count without looking it up again. */
  series(labels: Labels): S {
    let key = "";
    for (const n of this.labelNames) key += `${labels[n] ?? ""}\u0001`;
    let s = this.byKey.get(key);
    if (s === undefined) {
      const own: Labels = {};
      for (const n of this.labelNames) own[n] = labels[n] ?? "";
      s = this.make(own);
      this.byKey.set(key, s);
    }
    return s;
  }

  protected all(): IterableIterator<S> {
    return this.byKey.values();
  }

  protected abstract make(labels: Labels): S;

  /** prom-client calls it when a metric is removed or reset; counts only ever grow here. */
  reset(): void {}
}

export class LabeledCounter extends Labeled<CounterSeries> {
  readonly type = "counter";
  protected make(labels: Labels): CounterSeries {
    return { labels, value: 0 };
  }
  async get(): Promise<Exported> {
    const values = [...this.all()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: "counter", aggregator: "sum", values };
  }
}

export class LabeledHistogram extends Labeled<HistogramSeries> {
  readonly type = "histogram";
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }
  protected make(labels: Labels): HistogramSeries {
    return { labels, buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
  }
  /** Adds one observation (seconds) to a series. */
  observe(s: HistogramSeries, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    s.buckets[i]!++;
    s.sum += value;
    s.count++;
  }
  async get(): Promise<Exported> {
    const values: Exported["values"] = [];
    for (const s of this.all()) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < this.bounds.length ? String(this.bounds[i]) : "+Inf";
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: "histogram", aggregator: "sum", values };
  }
}
