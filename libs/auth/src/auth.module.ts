import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessGuard } from './access/access.guard.js';
import { BearerStrategy } from './access/bearer.strategy.js';
import { TokenAuthenticationCache } from './access/token-cache.js';
import { ApiTokenRepository } from './persistence/api-token.repository.js';
import { VendorRepository } from './persistence/vendor.repository.js';
import { ApiTokenEntity } from './tokens/api-token.entity.js';
import { TokenService } from './tokens/token.service.js';
import { VendorEntity } from './vendors/vendor.entity.js';
import { VendorDirectory } from './vendors/vendor-directory.js';
import { VendorService } from './vendors/vendor.service.js';

/** Vendors and their API tokens, without the HTTP guard (for the operator CLI and the worker). */
@Module({
  imports: [TypeOrmModule.forFeature([VendorEntity, ApiTokenEntity])],
  providers: [ApiTokenRepository, VendorRepository, TokenService, VendorService, VendorDirectory],
  exports: [TokenService, VendorService, VendorDirectory, TypeOrmModule],
})
export class VendorAccountsModule {}

/** This app instance's bearer strategy and the exact token cache behind it. */
@Module({
  imports: [VendorAccountsModule],
  providers: [TokenAuthenticationCache, BearerStrategy],
  exports: [TokenAuthenticationCache, BearerStrategy],
})
class BearerAuthenticationModule {}

/** Installs the deny-by-default guard on every route of the HTTP app that imports it. */
@Module({
  imports: [
    VendorAccountsModule,
    BearerAuthenticationModule,
    // The guard authenticates with this app's own strategy name; no sessions, the API is stateless.
    PassportModule.registerAsync({
      imports: [BearerAuthenticationModule],
      inject: [BearerStrategy],
      useFactory: (strategy: BearerStrategy) => ({ defaultStrategy: strategy.strategyName, session: false }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: AccessGuard }],
  exports: [VendorAccountsModule, BearerAuthenticationModule],
})
export class AuthModule {}
