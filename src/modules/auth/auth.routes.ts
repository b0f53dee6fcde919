import type { FastifyRequest } from 'fastify';
import { perAccountLimit } from '../../http/rate-limits.js';
import type { App } from '../../http/types.js';
import { Ok, ok } from '../../shared/schemas.js';
import { RegisterBodySchema, UserSchema } from '../users/index.js';
import * as S from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import type { IdpService } from './idp.service.js';

const tags = ['auth'];
const client = (req: FastifyRequest) => ({ ip: req.ip, userAgent: req.headers['user-agent'] });

export function authRoutes(auth: AuthService, idp: IdpService, authRateLimit: number) {
  // Credential and code endpoints share a stricter per-IP limit than the rest of the API;
  // changing the password is limited per account as strictly.
  const strict = { access: 'Public', rateLimit: { max: authRateLimit, timeWindow: '1 minute' } } as const;
  const pub = { access: 'Public' } as const;
  const signedIn = { access: 'Auth' } as const;

  return async (app: App) => {
    const passwordTries = perAccountLimit(app, 'change-password', authRateLimit);

    app.post(
      '/auth/register',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Create an account; a code is sent by SMS',
          body: RegisterBodySchema,
          errors: [409],
          response: { 201: Ok(S.RegisterResultSchema) },
        },
      },
      async (req, reply) => reply.code(201).send(ok(await auth.register(req.body))),
    );

    app.post(
      '/auth/login',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Sign in with phone number and password',
          body: S.LoginBodySchema,
          errors: [401, 403],
          response: { 200: Ok(S.AuthResultSchema) },
        },
      },
      async (req) => ok(await auth.login(req.body.phoneNumber, req.body.password, client(req))),
    );

    app.post(
      '/auth/login/email',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Email sign-in, step 1: checks the password and emails a code',
          body: S.EmailLoginBodySchema,
          errors: [401, 403],
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.loginWithEmail(req.body.email, req.body.password)),
    );

    app.post(
      '/auth/verify-otp',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Verify an SMS code (registration and login return tokens)',
          body: S.VerifyOtpBodySchema,
          errors: [403],
          response: { 200: Ok(S.VerifyResultSchema) },
        },
      },
      async (req) => ok(await auth.verifyOtp(req.body.phoneNumber, req.body.purpose, req.body.code, client(req))),
    );

    app.post(
      '/auth/verify-email-otp',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Verify an email code (login returns tokens)',
          body: S.VerifyEmailOtpBodySchema,
          errors: [403],
          response: { 200: Ok(S.VerifyResultSchema) },
        },
      },
      async (req) => ok(await auth.verifyEmailOtp(req.body.email, req.body.purpose, req.body.code, client(req))),
    );

    app.post(
      '/auth/resend-otp',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Send a new SMS code (3 per hour)',
          body: S.ResendOtpBodySchema,
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.resendOtp(req.body.phoneNumber, req.body.purpose)),
    );

    app.post(
      '/auth/resend-email-otp',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Send a new email code (3 per hour)',
          body: S.ResendEmailOtpBodySchema,
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.resendEmailOtp(req.body.email, req.body.purpose)),
    );

    app.post(
      '/auth/forgot-password',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Send a password reset code by SMS or email',
          body: S.ForgotPasswordBodySchema,
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.forgotPassword(req.body)),
    );

    app.post(
      '/auth/reset-password',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Set a new password with a reset code; ends every session',
          body: S.ResetPasswordBodySchema,
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.resetPassword(req.body)),
    );

    app.post(
      '/auth/change-password',
      {
        config: signedIn,
        preHandler: passwordTries,
        schema: {
          tags,
          summary: 'Change password; ends the other sessions',
          body: S.ChangePasswordBodySchema,
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await auth.changePassword(req.user, req.body.currentPassword, req.body.newPassword)),
    );

    app.post(
      '/auth/refresh-token',
      {
        config: pub,
        schema: {
          tags,
          summary: 'Exchange a refresh token for a new pair (single use)',
          body: S.RefreshBodySchema,
          errors: [401],
          response: { 200: Ok(S.TokenPairSchema) },
        },
      },
      async (req) => ok(await auth.refresh(req.body.refreshToken)),
    );

    app.post(
      '/auth/logout',
      { config: signedIn, schema: { tags, summary: 'End the current session', response: { 200: S.OkMessage } } },
      async (req) => ok(await auth.logout(req.user)),
    );

    app.get(
      '/auth/me',
      { config: signedIn, schema: { tags, summary: 'The signed-in user', response: { 200: Ok(UserSchema) } } },
      async (req) => ok(auth.me(req.user)),
    );

    app.post(
      '/auth/idp',
      {
        config: strict,
        schema: {
          tags,
          summary: 'Sign in with an identity provider ID token',
          body: S.IdpLoginBodySchema,
          errors: [401, 403, 409, 503],
          response: { 200: Ok(S.IdpResultSchema) },
        },
      },
      async (req) => ok(await idp.login(req.body.idToken, req.body.role, client(req))),
    );

    app.post(
      '/auth/idp/link',
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Link an identity provider account',
          body: S.IdTokenBodySchema,
          errors: [409, 503],
          response: { 200: Ok(S.IdentitySchema) },
        },
      },
      async (req) => ok(await idp.link(req.user, req.body.idToken)),
    );

    app.post(
      '/auth/idp/unlink',
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Unlink the identity provider account',
          errors: [404, 409, 503],
          response: { 200: S.OkMessage },
        },
      },
      async (req) => ok(await idp.unlink(req.user)),
    );
  };
}
