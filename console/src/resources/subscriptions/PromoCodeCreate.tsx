import { Create, SimpleForm, TextInput, regex, required, useTranslate } from 'react-admin';
import { PROMO_DEFAULTS, PromoFields } from './PromoFields';

const CODE = /^[A-Za-z0-9_-]{3,40}$/;

export default function PromoCodeCreate() {
  const translate = useTranslate();
  return (
    <Create redirect="list" record={PROMO_DEFAULTS}>
      <SimpleForm sx={{ maxWidth: 720 }}>
        <TextInput
          source="code"
          validate={[required(), regex(CODE, 'console.promoCodes.help.code')]}
          helperText={translate('console.promoCodes.help.code')}
        />
        <PromoFields />
      </SimpleForm>
    </Create>
  );
}
