import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import WarningAmberIcon from '@mui/icons-material/WarningAmber';
import { Box, Button, Checkbox, Chip, Link, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import {
  Datagrid,
  FunctionField,
  List,
  SearchInput,
  SelectInput,
  TextInput,
  TopToolbar,
  useListContext,
  useLocaleState,
  useRecordContext,
  useTranslate,
  useUnselectAll,
} from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { StatusField, formatMoney, formatWhen } from '../../fields';
import { DecisionButton, DecisionDialog, useDecision } from './decision';
import { decide, type AdminProduct } from './moderation.api';
import { Picture, Pictures } from './Picture';

const STATUSES = ['PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'INACTIVE', 'EXPIRED', 'DELETED'];
const CATEGORIES = [
  'BAKERY',
  'PREPARED_MEALS',
  'FRUITS_VEGETABLES',
  'DAIRY',
  'MEAT_FISH',
  'GROCERIES',
  'DRINKS',
  'OTHER',
];
const pending = (p: AdminProduct) => p.status === 'PENDING_REVIEW';
const label = (field: string) => `console.moderation.product.${field}`;

/** The full list: every product, filtered as the API allows. */
export function ProductList() {
  const translate = useTranslate();
  const choices = (values: string[], prefix: string) =>
    values.map((id) => ({ id, name: translate(`console.moderation.${prefix}.${id}`) }));
  const filters = [
    <SearchInput key="q" source="q" alwaysOn placeholder={translate(label('q'))} />,
    <SelectInput
      key="status"
      source="status"
      label={label('status')}
      alwaysOn
      choices={choices(STATUSES, 'productStatus')}
    />,
    <SelectInput
      key="category"
      source="category"
      label={label('category')}
      alwaysOn
      choices={choices(CATEGORIES, 'category')}
    />,
    <TextInput key="supplierId" source="supplierId" label={label('supplierId')} alwaysOn />,
    <TextInput key="storeId" source="storeId" label={label('storeId')} alwaysOn />,
  ];
  // Every filter shown at once: moderators narrow this list all day.
  return (
    <List
      filters={filters}
      sort={{ field: 'createdAt', order: 'DESC' }}
      actions={
        <TopToolbar>
          <BulkApproveButton />
        </TopToolbar>
      }
    >
      <ProductGrid showStatus />
    </List>
  );
}

/** The queue: products waiting for a decision, oldest first. */
export function ProductQueue() {
  return (
    <List
      sort={{ field: 'id', order: 'ASC' }}
      empty={<Empty />}
      actions={
        <TopToolbar>
          <BulkApproveButton />
        </TopToolbar>
      }
    >
      <ProductGrid />
    </List>
  );
}

function Empty() {
  const translate = useTranslate();
  return <Typography sx={{ p: 4 }}>{translate('console.moderation.product.empty')}</Typography>;
}

function ProductGrid({ showStatus = false }: { showStatus?: boolean }) {
  const translate = useTranslate();
  // The full list sorts on the server (`sort` of GET /admin/products); the queue is oldest first.
  const sortable = showStatus;
  return (
    // Rows are selected with a checkbox of our own: react-admin's puts its aria-label on the box, not on the input.
    <Datagrid rowClick={false} bulkActionButtons={false} expand={<ProductPanel />}>
      <FunctionField
        label={label('selection')}
        sortable={false}
        render={(p: AdminProduct) => <SelectProduct product={p} />}
      />
      <FunctionField
        label={label('picture')}
        sortable={false}
        render={(p: AdminProduct) => (
          <Picture
            url={p.images[0]?.thumbnailUrl}
            alt={translate('console.moderation.product.photo', { name: p.name, n: 1 })}
          />
        )}
      />
      <FunctionField
        label={label('name')}
        sortable={sortable}
        sortBy="name"
        render={(p: AdminProduct) => (
          <>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {p.name}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              {translate(`console.moderation.category.${p.category}`)}
            </Typography>
          </>
        )}
      />
      <FunctionField
        label={label('supplier')}
        sortable={false}
        render={(p: AdminProduct) => <SupplierCell product={p} />}
      />
      <FunctionField
        label={label('price')}
        sortable={sortable}
        sortBy="discountedPrice"
        render={(p: AdminProduct) => <PriceCell product={p} />}
      />
      <FunctionField
        label={label('dates')}
        sortable={sortable}
        sortBy="expiresAt"
        render={(p: AdminProduct) => <DatesCell product={p} />}
      />
      {showStatus ? (
        <FunctionField
          label={label('status')}
          sortBy="status"
          render={(p: AdminProduct) => (
            <Stack spacing={0.5} alignItems="flex-start">
              <StatusField source="status" prefix="moderation.productStatus" />
              {p.rejectionReason && <Typography variant="caption">{p.rejectionReason}</Typography>}
            </Stack>
          )}
        />
      ) : null}
      <FunctionField
        label={label('actions')}
        sortable={false}
        render={(p: AdminProduct) => (pending(p) ? <ProductActions product={p} /> : null)}
      />
    </Datagrid>
  );
}

function SupplierCell({ product: p }: { product: AdminProduct }) {
  const translate = useTranslate();
  const filter = encodeURIComponent(JSON.stringify({ supplierId: p.supplier.id }));
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <Link
        component={RouterLink}
        to={`/products?filter=${filter}`}
        variant="body2"
        onClick={(e) => e.stopPropagation()}
      >
        {p.supplier.businessName ?? '—'}
      </Link>
      {p.supplier.verificationStatus !== 'VERIFIED' && (
        <Chip
          size="small"
          variant="outlined"
          icon={<WarningAmberIcon />}
          label={translate('console.moderation.product.unverified')}
        />
      )}
      {p.supplier.deleted && <Chip size="small" label={translate('console.moderation.product.supplierDeleted')} />}
      <Typography variant="caption" color="text.secondary">
        {translate(label('store'))} : {p.store.name ?? '—'} · {p.store.city}
      </Typography>
    </Stack>
  );
}

function PriceCell({ product: p }: { product: AdminProduct }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <Box sx={{ whiteSpace: 'nowrap' }}>
      <Typography variant="body2">{formatMoney(p.discountedPrice, p.currency, locale)}</Typography>
      <Typography variant="caption" color="text.secondary" component="p">
        <s>{formatMoney(p.originalPrice, p.currency, locale)}</s> −{p.discountPercent} %
      </Typography>
      <Typography variant="caption" color="text.secondary" component="p">
        {translate(label('inStock'), { smart_count: p.quantity })}
      </Typography>
    </Box>
  );
}

function DatesCell({ product: p }: { product: AdminProduct }) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  return (
    <>
      <Typography variant="body2">
        {translate(label('expiresAt'))} : <time dateTime={p.expiresAt}>{formatWhen(p.expiresAt, locale)}</time>
      </Typography>
      <Typography variant="caption" color="text.secondary">
        {translate(label('createdAt'))} : <time dateTime={p.createdAt}>{formatWhen(p.createdAt, locale)}</time>
      </Typography>
    </>
  );
}

function ProductActions({ product: p }: { product: AdminProduct }) {
  const translate = useTranslate();
  const run = useDecision();
  const t = (key: string) => translate(`console.moderation.product.${key}`, { name: p.name });
  return (
    <Stack spacing={0.5} alignItems="flex-start">
      <Button
        size="small"
        color="success"
        startIcon={<CheckIcon />}
        aria-label={t('approveOne')}
        onClick={() => run(() => decide.approveProduct(p.id), 'console.moderation.product.approved', { name: p.name })}
      >
        {translate('console.moderation.approve')}
      </Button>
      <DecisionButton
        label={translate('console.moderation.reject')}
        ariaLabel={t('rejectOne')}
        icon={<CloseIcon />}
        color="error"
        danger
        title={t('rejectTitle')}
        text={t('rejectText')}
        reason={{ required: true, min: 3, label: translate('console.moderation.reason') }}
        confirm={translate('console.moderation.reject')}
        onConfirm={(reason) =>
          run(() => decide.rejectProduct(p.id, reason!), 'console.moderation.product.rejected', { name: p.name })
        }
      />
    </Stack>
  );
}

/** A product waiting for review can join the selection that is approved at once. */
function SelectProduct({ product: p }: { product: AdminProduct }) {
  const translate = useTranslate();
  const { selectedIds, onToggleItem } = useListContext();
  if (!pending(p)) return null;
  return (
    <Checkbox
      checked={selectedIds.includes(p.id)}
      onChange={() => onToggleItem(p.id)}
      slotProps={{ input: { 'aria-label': translate('console.moderation.product.select', { name: p.name }) } }}
    />
  );
}

function BulkApproveButton() {
  const translate = useTranslate();
  const { selectedIds, resource } = useListContext();
  const unselectAll = useUnselectAll(resource);
  const run = useDecision();
  const [open, setOpen] = useState(false);
  const smart_count = selectedIds.length;
  return (
    <>
      <Button size="small" startIcon={<DoneAllIcon />} disabled={smart_count === 0} onClick={() => setOpen(true)}>
        {translate('console.moderation.product.bulkApprove', { smart_count })}
      </Button>
      <DecisionDialog
        open={open}
        onClose={() => setOpen(false)}
        title={translate('console.moderation.product.bulkTitle', { smart_count })}
        text={translate('console.moderation.product.bulkText', { smart_count })}
        confirm={translate('console.moderation.approve')}
        onConfirm={async () => {
          await run(() => decide.approveProducts(selectedIds.map(String)), 'console.moderation.product.bulkApproved', {
            smart_count,
          });
          unselectAll();
        }}
      />
    </>
  );
}

/** The expanded row: what a moderator reads before deciding. */
function ProductPanel() {
  const p = useRecordContext<AdminProduct>();
  const translate = useTranslate();
  if (!p) return null;
  const tags = (values: string[]) => (values.length ? values.join(', ') : '—');
  return (
    <Box sx={{ p: 2, display: 'grid', gap: 1 }}>
      <Typography variant="body2">{p.description || '—'}</Typography>
      <Typography variant="body2">
        {translate(label('pickup'))} : {p.pickupStart}–{p.pickupEnd} · {translate(label('dietaryTags'))} :{' '}
        {tags(p.dietaryTags)} · {translate(label('allergens'))} : {tags(p.allergens)}
      </Typography>
      {p.rejectionReason && (
        <Typography variant="body2">
          {translate(label('rejectionReason'))} : {p.rejectionReason}
        </Typography>
      )}
      <Pictures
        urls={p.images.map((i) => i.largeUrl)}
        alt={(n) => translate('console.moderation.product.photo', { name: p.name, n })}
      />
    </Box>
  );
}
