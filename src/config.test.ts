import { describe, expect, it } from 'vitest';
import { loadConfig, SANDBOX_WEBHOOK_SECRET, webhookSecrets } from './config.js';

describe('configuration', () => {
  it('applies defaults on a bare environment', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.DATA_DIR).toBe('./data');
    expect(c.ACCESS_TOKEN_TTL_SECONDS).toBe(900);
    expect(c.REFRESH_TOKEN_TTL_SECONDS).toBe(604_800);
    expect(c.SMS_PROVIDER).toBe('log');
  });

  it('refuses the payment sandbox in production and needs the checkout variables', () => {
    const secrets = {
      JWT_ACCESS_SECRET: 'a'.repeat(40),
      JWT_REFRESH_SECRET: 'b'.repeat(40),
      OTP_SECRET: 'c'.repeat(40),
    };
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets })).toThrow(
      /MOBILEMONEY_PROVIDER: "sandbox"[\s\S]*PUBLIC_BASE_URL: required in production/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets, MOBILEMONEY_PROVIDER: 'checkout' })).toThrow(
      /MOBILEMONEY_API_KEY: required when MOBILEMONEY_PROVIDER=checkout[\s\S]*MOBILEMONEY_WEBHOOK_SECRET: required/,
    );
    expect(() => loadConfig({ MOBILEMONEY_PROVIDER: 'checkout', MOBILEMONEY_API_KEY: 'k' })).toThrow(
      /MOBILEMONEY_WEBHOOK_SECRET: required/,
    );
    expect(() => loadConfig({ MOBILEMONEY_PROVIDER: 'paypal' })).toThrow(
      /MOBILEMONEY_PROVIDER: must be one of sandbox, checkout/,
    );
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'api.example' })).toThrow(
      /PUBLIC_BASE_URL: must be an absolute http\(s\) URL/,
    );
    expect(() => loadConfig({ MOBILEMONEY_WEBHOOK_SECRET: ' , ' })).toThrow(/MOBILEMONEY_WEBHOOK_SECRET: no secret/);
    const dev = loadConfig({ PORT: '8080' });
    expect(dev.MOBILEMONEY_PROVIDER).toBe('sandbox');
    expect(dev.PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(webhookSecrets(dev)).toEqual([SANDBOX_WEBHOOK_SECRET]);
  });

  it('names each bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', RATE_LIMIT_MAX: '0' })).toThrow(
      /PORT: must be integer[\s\S]*LOG_LEVEL: must be one of fatal[\s\S]*RATE_LIMIT_MAX/,
    );
  });

  it('refuses to start in production without secrets or with log-only messaging', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_ACCESS_SECRET: required in production/);
    const secrets = {
      JWT_ACCESS_SECRET: 'a'.repeat(40),
      JWT_REFRESH_SECRET: 'b'.repeat(40),
      OTP_SECRET: 'c'.repeat(40),
    };
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets })).toThrow(/SMS_PROVIDER/);
    const ok = loadConfig({
      NODE_ENV: 'production',
      ...secrets,
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: '+15005550006',
      EMAIL_PROVIDER: 'smtp',
      SMTP_URL: 'smtp://mail.example:587',
      PUSH_PROVIDER: 'fcm',
      FCM_PROJECT_ID: 'foodsave',
      FCM_CREDENTIALS: JSON.stringify({ client_email: 'push@foodsave.iam.gserviceaccount.com', private_key: 'k' }),
      MOBILEMONEY_PROVIDER: 'checkout',
      MOBILEMONEY_API_KEY: 'wave_sn_prod_key',
      MOBILEMONEY_WEBHOOK_SECRET: 'new-secret, old-secret',
      PUBLIC_BASE_URL: 'https://api.foodsave.example/',
    });
    expect(ok.PUBLIC_BASE_URL).toBe('https://api.foodsave.example');
    expect(webhookSecrets(ok)).toEqual(['new-secret', 'old-secret']);
    expect(ok.JWT_ACCESS_SECRET).toBe('a'.repeat(40));
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        ...secrets,
        SMS_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: 'AC1',
        TWILIO_AUTH_TOKEN: 't',
        TWILIO_FROM: '+1500',
        EMAIL_PROVIDER: 'smtp',
        SMTP_URL: 'smtp://m:587',
      }),
    ).toThrow(/PUSH_PROVIDER: "log"/);
  });

  it('requires the settings of a chosen adapter', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'twilio' })).toThrow(/TWILIO_ACCOUNT_SID: required/);
    expect(() => loadConfig({ EMAIL_PROVIDER: 'smtp' })).toThrow(/SMTP_URL: required/);
    expect(() => loadConfig({ PUSH_PROVIDER: 'fcm' })).toThrow(
      /FCM_PROJECT_ID: required[\s\S]*FCM_CREDENTIALS: required/,
    );
    expect(() =>
      loadConfig({ PUSH_PROVIDER: 'fcm', FCM_PROJECT_ID: 'p', FCM_CREDENTIALS: '{"client_email":1}' }),
    ).toThrow(/FCM_CREDENTIALS: must be/);
    expect(() => loadConfig({ IDP_ISSUER: 'https://idp' })).toThrow(/set all three or none/);
    expect(() => loadConfig({ JWT_ACCESS_SECRET: 'short' })).toThrow(/JWT_ACCESS_SECRET/);
  });
});
