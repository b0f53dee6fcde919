import type { Executor } from '../../db/client.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import type { CampaignRecord } from './advertising.repository.js';
import type { CreateCampaignBody, UpdateCampaignBody } from './advertising.schemas.js';

/** Whether a product, store or supplier is public (each module's own rule). */
export interface TargetChecks {
  product: (ex: Executor, id: string) => Promise<boolean>;
  store: (ex: Executor, id: string) => Promise<boolean>;
  supplier: (ex: Executor, id: string) => Promise<boolean>;
}

/** The stored fields a campaign body decides (all but the picture). */
export type CampaignFields = Pick<
  CampaignRecord,
  | 'name'
  | 'title'
  | 'text'
  | 'targetType'
  | 'targetId'
  | 'targetUrl'
  | 'placement'
  | 'cities'
  | 'latitude'
  | 'longitude'
  | 'radiusKm'
  | 'categories'
  | 'startsAt'
  | 'endsAt'
  | 'totalBudget'
  | 'dailyBudget'
  | 'pricingModel'
  | 'bid'
>;

const invalid = (details: ErrorDetail[]) => new AppError(400, 'VALIDATION_ERROR', 'The request is not valid', details);

/** The fields of a campaign after applying a body (create: over nothing; update: over the row). */
export function mergeFields(body: CreateCampaignBody | UpdateCampaignBody, base?: CampaignFields): CampaignFields {
  const t = body.targeting;
  const targetingGiven = t !== undefined;
  return {
    name: body.name ?? base!.name,
    title: body.creative?.title ?? base!.title,
    text: body.creative?.text ?? base?.text ?? '',
    targetType: body.target?.type ?? base!.targetType,
    targetId: body.target ? (body.target.id ?? null) : base!.targetId,
    targetUrl: body.target ? (body.target.url ?? null) : base!.targetUrl,
    placement: body.placement ?? base!.placement,
    cities: targetingGiven ? (t.cities ?? []) : (base?.cities ?? []),
    latitude: targetingGiven ? (t.latitude ?? null) : (base?.latitude ?? null),
    longitude: targetingGiven ? (t.longitude ?? null) : (base?.longitude ?? null),
    radiusKm: targetingGiven ? (t.radiusKm ?? null) : (base?.radiusKm ?? null),
    categories: targetingGiven ? (t.categories ?? []) : (base?.categories ?? []),
    startsAt: body.startsAt ? new Date(body.startsAt) : base!.startsAt,
    endsAt: body.endsAt ? new Date(body.endsAt) : base!.endsAt,
    totalBudget: body.totalBudget ?? base!.totalBudget,
    dailyBudget: body.dailyBudget ?? base!.dailyBudget,
    pricingModel: body.pricingModel ?? base!.pricingModel,
    bid: body.bid ?? base!.bid,
  };
}

/** Rules across fields, and the target: a public product, store or supplier, or an https URL. */
export async function checkFields(
  ex: Executor,
  f: CampaignFields,
  checks: TargetChecks,
  opts: { now: Date; spent: number; datesChanged: boolean },
): Promise<void> {
  const errors: ErrorDetail[] = [];
  if (f.targetType === 'URL') {
    if (!f.targetUrl) errors.push({ field: 'body.target.url', message: 'is required for a URL target' });
    if (f.targetId) errors.push({ field: 'body.target.id', message: 'is only for PRODUCT, STORE or SUPPLIER targets' });
  } else {
    if (f.targetUrl) errors.push({ field: 'body.target.url', message: 'is only for URL targets' });
    if (!f.targetId) errors.push({ field: 'body.target.id', message: `is required for a ${f.targetType} target` });
    else {
      const check = { PRODUCT: checks.product, STORE: checks.store, SUPPLIER: checks.supplier }[f.targetType];
      if (!(await check(ex, f.targetId)))
        errors.push({ field: 'body.target.id', message: `must be a public ${f.targetType.toLowerCase()}` });
    }
  }
  const point = [f.latitude, f.longitude, f.radiusKm].filter((v) => v !== null).length;
  if (point !== 0 && point !== 3)
    errors.push({ field: 'body.targeting', message: 'latitude, longitude and radiusKm go together' });
  if (f.endsAt <= f.startsAt) errors.push({ field: 'body.endsAt', message: 'must be later than startsAt' });
  else if (opts.datesChanged && f.endsAt <= opts.now)
    errors.push({ field: 'body.endsAt', message: 'must be in the future' });
  if (f.dailyBudget > f.totalBudget) errors.push({ field: 'body.dailyBudget', message: 'must not exceed totalBudget' });
  if (f.totalBudget < opts.spent)
    errors.push({ field: 'body.totalBudget', message: `must not be below what was already spent (${opts.spent})` });
  if (f.pricingModel === 'CPC' && f.bid > f.dailyBudget)
    errors.push({ field: 'body.bid', message: 'must not exceed dailyBudget (one click must fit in a day)' });
  if (errors.length) throw invalid(errors);
}

/** The bytes of a picture sent as base64, or as a data: URL. */
export function decodeImage(data: string): Buffer {
  const comma = data.startsWith('data:') ? data.indexOf(',') : -1;
  const b64 = comma >= 0 ? data.slice(comma + 1) : data;
  if (!/^[A-Za-z0-9+/=_-]+$/.test(b64)) throw invalid([{ field: 'body.creative.image', message: 'must be base64' }]);
  return Buffer.from(b64, 'base64');
}
