import type PDFKit from 'pdfkit';
import type { StatementView } from './billing.schemas.js';

// Loaded on the first statement: the PDF library and its fonts are megabytes every process would hold.
let pdfkit: Promise<typeof PDFKit> | undefined;

const day = (iso: string) => iso.slice(0, 10);
const money = (n: number, currency: string) => `${n.toLocaleString('fr-FR').replace(/\s/g, ' ')} ${currency}`;

/**
 * Renders an advertiser's monthly statement. Its dates (the file's creation date included) are the
 * statement's own, so the same figures give the same bytes.
 */
export async function renderStatement(s: StatementView): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= import('pdfkit').then((m) => m.default));
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `Relevé publicitaire ${s.number}`,
      Producer: 'Advertising',
      Creator: 'Advertising',
      CreationDate: new Date(s.to),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (b: Buffer) => chunks.push(b));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const m = (n: number) => money(n, s.currency);
  doc.fontSize(20).text('Relevé de compte publicitaire');
  doc.moveDown(0.5).fontSize(12).text(`N° ${s.number}`);
  doc.text(`Période : du ${day(s.from)} au ${day(s.to)}${s.complete ? '' : ' (mois en cours)'}`);
  doc.moveDown();
  doc.text(s.advertiser.companyName);
  doc.text(s.advertiser.billingAddress);
  if (s.advertiser.billingTaxId) doc.text(`NINEA : ${s.advertiser.billingTaxId}`);
  doc.moveDown();
  doc.text(`Solde au début de la période : ${m(s.openingBalance)}`);
  doc.moveDown(0.5).text('Recharges :');
  if (!s.topUps.length) doc.text('  aucune');
  for (const t of s.topUps) doc.text(`  ${day(t.at)}  + ${m(t.amount)}  (${t.topUpId})`);
  doc.text(`Total rechargé : ${m(s.toppedUp)}`);
  doc.moveDown(0.5).text('Dépenses par campagne :');
  if (!s.campaigns.length) doc.text('  aucune');
  for (const c of s.campaigns)
    doc.text(`  ${c.name} (${c.pricingModel}) : ${c.impressions} impressions, ${c.clicks} clics, - ${m(c.spent)}`);
  doc.text(`Total dépensé : ${m(s.spent)}`);
  doc.moveDown();
  doc.fontSize(14).text(`Solde à la fin de la période : ${m(s.closingBalance)}`);
  doc.end();
  return done;
}
