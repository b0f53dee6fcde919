import sharp from 'sharp';
import type { UploadedFile } from '../http/uploads.js';
import type { StoreView } from '../modules/stores/index.js';
import type { UserRecord } from '../modules/users/index.js';
import { accountLabel } from './accounts.seed.js';
import { DEMO_SUPPLIERS, type DemoSupplier } from './dakar.js';
import type { SeedContext } from './seed-context.js';

// Each demo supplier goes the way a real one does: profile, KYC documents, KYC approved and
// profile verified by the administrator, then its stores. Each step runs only when the supplier
// has not taken it yet, and a state an administrator chose since (a rejection, say) is left alone.

const REVIEW_NOTE = 'Demo data: documents checked';

export async function seedSuppliers(s: SeedContext): Promise<void> {
  for (const demo of DEMO_SUPPLIERS) await seedSupplier(s, demo);
}

async function seedSupplier(s: SeedContext, demo: DemoSupplier): Promise<void> {
  const { suppliers, kyc, stores } = s.app.services;
  const suppliersAdmin = suppliers.admin;
  const { user: owner, created: ownerCreated } = await s.ensureAccount(demo.owner);
  s.record({ kind: 'account', label: accountLabel(demo.owner), id: owner.id, created: ownerCreated });

  let changed = false;
  const reload = async () => (await suppliers.findOwnProfile(owner.id))!;
  if (!(await suppliers.findOwnProfile(owner.id))) {
    await suppliers.create(await s.actAs(owner), demo.profile);
    changed = true;
  }
  let profile = await reload();
  if (profile.kycStatus === 'NOT_SUBMITTED') {
    await kyc.submit(await s.actAs(owner), await kycDocuments(demo));
    profile = await reload();
    changed = true;
  }
  if (profile.kycStatus === 'PENDING') {
    await kyc.approveSupplier(await s.asAdmin(), profile.id, REVIEW_NOTE);
    profile = await reload();
    changed = true;
  }
  if (profile.verificationStatus === 'PENDING' && profile.kycStatus === 'APPROVED') {
    await suppliersAdmin.verify(await s.asAdmin(), profile.id, REVIEW_NOTE);
    profile = await reload();
    changed = true;
  }
  const state = `${profile.verificationStatus}, KYC ${profile.kycStatus}`;
  s.record({
    kind: 'supplier',
    label: `${profile.businessName} (${state}), ${profile.address}`,
    id: profile.id,
    created: changed,
  });

  const existing = await ownStores(s, owner, profile.id);
  for (const body of demo.stores) {
    const found = existing.find((st) => st.name === body.name);
    const store = found ?? (await stores.create(await s.actAs(owner), body));
    s.record({ kind: 'store', label: `${store.name}, ${store.address}, ${store.city}`, id: store.id, created: !found });
  }
}

/** The supplier's stores; without signing in as the owner when the public listing shows them all. */
async function ownStores(s: SeedContext, owner: UserRecord, supplierId: string): Promise<StoreView[]> {
  const { stores } = s.app.services;
  const { total } = await stores.countBySupplier(s.app.ctx.db, supplierId);
  if (total === 0) return [];
  const shown = await stores.search({ supplierId, page: 1, limit: 100 });
  if (shown.items.length === total) return shown.items;
  // Some are hidden from the public (deactivated, or the supplier is not verified): ask as the owner.
  return (await stores.listOwn(await s.actAs(owner), { page: 1, limit: 100 })).items;
}

/** An identity card picture and a register extract, made here, in the form an upload reaches the service. */
async function kycDocuments(demo: DemoSupplier): Promise<{ files: UploadedFile[]; fields: Record<string, string> }> {
  const card = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#d8c9a3' } })
    .jpeg()
    .toBuffer();
  const extract = onePagePdf(`Registre du commerce ${demo.registrationNumber} - ${demo.profile.businessName}`);
  return {
    files: [
      { field: 'idDocument', filename: 'carte-identite.jpg', ext: 'jpg', contentType: 'image/jpeg', body: card },
      {
        field: 'businessDocument',
        filename: 'registre-commerce.pdf',
        ext: 'pdf',
        contentType: 'application/pdf',
        body: extract,
      },
    ],
    fields: { documentType: 'NATIONAL_ID', businessRegistrationNumber: demo.registrationNumber },
  };
}

/** A valid one-page PDF showing one line of (ASCII) text. */
export function onePagePdf(text: string): Buffer {
  const line = text
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/[()\\]/g, '\\$&');
  const content = `BT /F1 14 Tf 56 760 Td (${line}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}
