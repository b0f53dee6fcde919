import { localParts } from '../../shared/opening-hours.js';
import type { ServableRecord } from './advertising.repository.js';

/** Days, pacing and "today" are those of the platform's home market. */
export const PLATFORM_TIME_ZONE = 'Africa/Dakar';
const DAY_SECONDS = 86_400;
/** The head start of the day: what may be spent at 00:00 is the budget of its first quarter hour. */
export const PACING_HEAD_START_SECONDS = 900;

// The current day's bounds, so that serving does not format a date per request: the time zone is
// asked again only outside them (the platform's zone has no daylight saving time; a zone with it
// would be asked again at its next midnight, one hour early or late at worst on the change's day).
let known: { day: string; startMs: number; endMs: number } | undefined;

/** The day (YYYY-MM-DD) and seconds since its midnight, in the platform's time zone. */
export function platformDay(at: Date): { day: string; elapsedSeconds: number } {
  const ms = at.getTime();
  if (known && ms >= known.startMs && ms < known.endMs)
    return { day: known.day, elapsedSeconds: Math.floor((ms - known.startMs) / 1000) };
  const p = localParts(PLATFORM_TIME_ZONE, at);
  const [h, m] = p.time.split(':').map(Number) as [number, number];
  const elapsedSeconds = h * 3600 + m * 60 + p.seconds;
  const startMs = ms - (ms % 1000) - elapsedSeconds * 1000;
  known = { day: p.date, startMs, endMs: startMs + DAY_SECONDS * 1000 };
  return { day: p.date, elapsedSeconds };
}

/**
 * What a campaign may have spent so far today:
 *   floor(dailyBudget x min(1, (secondsElapsedToday + 900) / 86400))
 * so the day's budget spreads evenly over the day; in the first hour at most 1/24 of it plus the
 * head start (1/96) can be spent.
 */
export function allowedSoFar(dailyBudget: number, elapsedSeconds: number): number {
  return Math.floor((dailyBudget * Math.min(DAY_SECONDS, elapsedSeconds + PACING_HEAD_START_SECONDS)) / DAY_SECONDS);
}

/** An active campaign as serving keeps it, with what this instance added since it was read. */
export interface ServedCampaign {
  record: ServableRecord;
  /** Impressions counted here since the read (CPM spend is estimated from them). */
  localImpressions: number;
  /** Spend of clicks counted here since the read. */
  localSpend: number;
  rank: number;
  cities: Set<string>;
  categories: Set<string>;
}

/** Accents and letter case do not matter when matching a city. */
export const foldCity = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').trim().toLowerCase();

/** Estimated spend (total and today) of a campaign, with what this instance counted. */
export function spendOf(c: ServedCampaign): { total: number; today: number } {
  const r = c.record;
  let extra = c.localSpend;
  if (r.pricingModel === 'CPM')
    extra += (Math.floor((r.impressions + c.localImpressions) / 1000) - Math.floor(r.impressions / 1000)) * r.bid;
  return { total: r.spent + extra, today: r.todaySpend + extra };
}

/** Whether the budget and the pace allow showing the campaign once more now. */
export function withinBudget(c: ServedCampaign, elapsedSeconds: number): boolean {
  const r = c.record;
  const { total, today } = spendOf(c);
  // A CPC ad is shown only if its click can still be paid; a CPM one while anything is left.
  const unit = r.pricingModel === 'CPC' ? r.bid : 1;
  if (total + unit > r.totalBudget || today + unit > r.dailyBudget) return false;
  return today < allowedSoFar(r.dailyBudget, elapsedSeconds);
}

const EARTH_RADIUS_KM = 6371.0088;
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

export interface Audience {
  latitude?: number;
  longitude?: number;
  category?: string;
  city?: string;
}

/** Targeting restricts: a targeted campaign is shown only to a request that says it matches. */
export function matches(c: ServedCampaign, a: Audience, foldedCity: string | undefined): boolean {
  const r = c.record;
  if (c.cities.size && (!foldedCity || !c.cities.has(foldedCity))) return false;
  if (c.categories.size && (!a.category || !c.categories.has(a.category))) return false;
  if (r.latitude !== null && r.longitude !== null && r.radiusKm !== null) {
    if (a.latitude === undefined || a.longitude === undefined) return false;
    if (distanceKm(r.latitude, r.longitude, a.latitude, a.longitude) > r.radiusKm) return false;
  }
  return true;
}

/**
 * Order of preference: expected revenue per thousand impressions. A CPC bid counts for the
 * clicks of a thousand impressions at a 1% click rate (x 10); a CPM bid as it is.
 */
export const rankOf = (r: Pick<ServableRecord, 'pricingModel' | 'bid'>) =>
  r.pricingModel === 'CPC' ? r.bid * 10 : r.bid;
