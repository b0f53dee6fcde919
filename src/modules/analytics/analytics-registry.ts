import { together, type Executor } from '../../db/client.js';
import type { PeriodUnit } from '../ledger/index.js';

/** A time window of the dashboard: from its start (a UTC midnight) to the moment of the answer. */
export interface Window {
  from: Date;
  to: Date;
}

/** What a dashboard source is asked for: the business currency and the three windows of the answer. */
export interface DashboardScope {
  now: Date;
  currency: string;
  today: Window;
  last7Days: Window;
  last30Days: Window;
}

/** A figure: a number (count, minor units), null when unknown, or named sub-figures (two levels at most). */
export type FigureValue = number | null | { [name: string]: number | null | { [name: string]: number | null } };
/** Figures by section (`users`, `moderation`...), then by name. */
export type Sections = Record<string, Record<string, FigureValue>>;
/**
 * One module's dashboard figures, read from its own tables only. A source may fill several
 * sections (products fill `catalog` and `moderation`); two sources never give the same figure.
 */
export type FigureSource = (ex: Executor, scope: DashboardScope) => Promise<Sections>;

export interface ImpactRange {
  from: Date;
  to: Date;
  unit: PeriodUnit;
  currency: string;
}
/**
 * What one activity saved per period (`period` is the first day, YYYY-MM-DD, as periods.ts makes
 * them): food in grams (collected orders, bookings, food donations) and money given (financial
 * donations, minor units of the range's currency), and how many things (orders, donations) gave it.
 */
export interface ImpactRow {
  period: string;
  foodGrams: number;
  moneyDonated: number;
  count: number;
}
export type ImpactSource = (ex: Executor, range: ImpactRange) => Promise<ImpactRow[]>;

/** A supplier's rating from its reviews (null while it has none). */
export type SupplierRatingSource = (
  ex: Executor,
  supplierId: string,
) => Promise<{ average: number; count: number } | null>;

/**
 * Where modules plug their figures into the administrators' dashboard and impact report, as
 * deletion checks plug into `ctx.workInProgress`: the analytics module reads no table of its own
 * and knows no module by name, so a module built later adds its figures by registering (see
 * docs/analytics.md), and they appear in the answers with nothing else changed.
 */
export class AnalyticsRegistry {
  private readonly figures = new Map<string, FigureSource>();
  private readonly impact = new Map<string, ImpactSource>();
  private rating: SupplierRatingSource | null = null;

  /** `name` names the source (the module) in errors; one registration per name. */
  registerFigures(name: string, source: FigureSource): void {
    if (this.figures.has(name)) throw new Error(`dashboard figures already registered: ${name}`);
    this.figures.set(name, source);
  }

  /** `name` is the activity (`orders`, `bookings`, `foodDonations`...): the impact report's breakdown key. */
  registerImpactSource(name: string, source: ImpactSource): void {
    if (this.impact.has(name)) throw new Error(`impact source already registered: ${name}`);
    this.impact.set(name, source);
  }

  /** The reviews module gives suppliers' ratings; until then supplier performance answers null. */
  registerSupplierRating(source: SupplierRatingSource): void {
    if (this.rating) throw new Error('supplier rating already registered');
    this.rating = source;
  }

  /** Every source's figures merged by section; a figure given twice is a wiring mistake. */
  async dashboard(ex: Executor, scope: DashboardScope): Promise<Sections> {
    const entries = [...this.figures];
    const answers = await together(
      ex,
      entries.map(
        ([, source]) =>
          () =>
            source(ex, scope),
      ),
    );
    const merged: Sections = {};
    answers.forEach((sections, i) => {
      for (const [section, figures] of Object.entries(sections)) {
        const into = (merged[section] ??= {});
        for (const [name, value] of Object.entries(figures)) {
          if (name in into)
            throw new Error(`dashboard figure ${section}.${name} given twice (again by ${entries[i]![0]})`);
          into[name] = value;
        }
      }
    });
    return merged;
  }

  async impactRows(ex: Executor, range: ImpactRange): Promise<[name: string, rows: ImpactRow[]][]> {
    const entries = [...this.impact];
    const answers = await together(
      ex,
      entries.map(
        ([, source]) =>
          () =>
            source(ex, range),
      ),
    );
    return entries.map(([name], i) => [name, answers[i]!]);
  }

  supplierRating(ex: Executor, supplierId: string) {
    return this.rating ? this.rating(ex, supplierId) : Promise.resolve(null);
  }
}
