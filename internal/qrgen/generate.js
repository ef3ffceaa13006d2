// Writes the independent-generator fixture of the QR check: codes made by
// open-source EMV QR generators from the npm registry (pinned in
// package.json), each with the answer the service must give for it on
// decode, quote and payment, derived from what the generator was asked to
// encode and the service's decisions on the generators' deviations (see
// simulator/README.md, "QR payments"). The Go test
// TestIndependentGeneratorCodes (package qrpay) runs every row against the
// simulator through the SDK.
//
// Usage: node generate.js [OUT.json]   (default: ../../qrpay/testdata/qr_generators.json)
'use strict'

const fs = require('fs')
const path = require('path')

const promptparse = require('promptparse')
const ppgen = require('promptparse/generate')
const promptpayQR = require('promptpay-qr')
const PaynowQR = require('paynowqr')
const { QRPay, BanksObject, VietQRService } = require('vietnam-qr-pay')
const { BakongKHQR, khqrData, IndividualInfo, MerchantInfo } = require('bakong-khqr')
const { Merchant } = require('emv-qrcps')

function version (name) {
  return require(path.join(__dirname, 'node_modules', name, 'package.json')).version
}

const rows = []

// add records one code. want: { payee, currency, amount (as the code prints
// it, '' when open), editable, paid (the acquirer amount quotes and payments
// answer) } or { error: CODE } for a code the service refuses; send is the
// amount a wallet sends for an open amount; pay marks the sample paid.
function add (generator, scheme, variant, code, want, opts = {}) {
  const o = { generator, version: version(generator), scheme, variant, code, amount: opts.send || '', pay: !!opts.pay, deviation: opts.deviation || '' }
  if (want.error) {
    const e = 'error ' + want.error
    o.want = { decode: e, quote: e, pay: o.pay ? e : '' }
  } else {
    const paid = want.payee + ' | ' + want.paid + ' ' + want.currency
    o.want = {
      decode: `${want.payee} | ${want.amount} ${want.currency} | editable=${want.editable}`,
      quote: paid,
      pay: o.pay ? paid : ''
    }
  }
  rows.push(o)
}

const fixedTHB = (payee, amount, paid) => ({ payee, currency: 'THB', amount, editable: false, paid: paid || amount })
const openTHB = (payee, sent) => ({ payee, currency: 'THB', amount: '', editable: true, paid: sent })

// promptparse: PromptPay AnyID by proxy type, bill payment, TrueMoney, and
// its own TLV encoder for the layouts it has no template for.
{
  const g = 'promptparse'
  add(g, 'promptpay', 'mobile, open amount', ppgen.anyId({ type: 'MSISDN', target: '0812345678' }),
    openTHB('mobile +66812345678', '100.00'), { send: '100.00', pay: true })
  add(g, 'promptpay', 'mobile', ppgen.anyId({ type: 'MSISDN', target: '0812345678', amount: 350 }),
    fixedTHB('mobile +66812345678', '350.00'), { pay: true })
  add(g, 'promptpay', 'national id', ppgen.anyId({ type: 'NATID', target: '3101234567891', amount: 120.5 }),
    fixedTHB('national ID 3101234567891', '120.50'))
  add(g, 'promptpay', 'e-wallet', ppgen.anyId({ type: 'EWALLETID', target: '140000812345678', amount: 99.99 }),
    fixedTHB('e-wallet 140000812345678', '99.99'))
  add(g, 'promptpay', 'bank account', ppgen.anyId({ type: 'BANKACC', target: '0041234567890', amount: 200 }),
    fixedTHB('account 1234567890, bank 004', '200.00'), { pay: true })
  add(g, 'promptpay', 'bill payment', ppgen.billPayment({ billerId: '099400016550100', ref1: 'INV12345', ref2: 'BRANCH7', amount: 300 }),
    fixedTHB('biller 099400016550100 ref INV12345', '300.00'), { pay: true })
  add(g, 'promptpay', 'bill payment, open amount', ppgen.billPayment({ billerId: '099400016550100', ref1: 'INV12346' }),
    openTHB('biller 099400016550100 ref INV12346', '250.00'), { send: '250.00' })
  add(g, 'promptpay', 'TrueMoney e-wallet with message (tag 81)', ppgen.trueMoney({ mobileNo: '0801111111', amount: 50, message: 'Hello' }),
    fixedTHB('e-wallet 140000801111111', '50.00'), { deviation: 'unreserved tag 81 (message) is kept and not read' })

  // Layouts promptparse has no generator for, written with its TLV encoder.
  const { tag, encode, withCrcTag } = promptparse
  const code = (tags) => withCrcTag(encode(tags), '63')
  const head = [tag('00', '01'), tag('01', '12')]
  const mobile = tag('29', encode([tag('00', 'A000000677010111'), tag('01', '0066812345678')]))
  const tail = [tag('53', '764'), tag('58', 'TH')]
  add(g, 'promptpay', 'cross-border bill payment (A000000677012006)',
    code([...head, tag('30', encode([tag('00', 'A000000677012006'), tag('01', '010753600031501'), tag('02', 'TRIP0042')])), ...tail, tag('54', '450.00')]),
    fixedTHB('biller 010753600031501 ref TRIP0042', '450.00'), { pay: true, deviation: 'accepted: a Thai merchant code meant for foreign wallets, the service\'s own case' })
  add(g, 'promptpay', 'amount 0', code([...head, mobile, ...tail, tag('54', '0')]),
    openTHB('mobile +66812345678', '100.00'), { send: '100.00', deviation: 'amount 0 is an open amount' })
  add(g, 'promptpay', 'three decimals, zero', code([...head, mobile, ...tail, tag('54', '350.000')]),
    fixedTHB('mobile +66812345678', '350.000', '350.00'), { deviation: 'extra zero decimals read exactly' })
  add(g, 'promptpay', 'three decimals, not zero', code([...head, mobile, ...tail, tag('54', '350.125')]),
    { error: 'qr_code_invalid' }, { pay: true, deviation: 'refused: not payable in THB without rounding' })
  add(g, 'promptpay', 'empty name 5900', code([...head, mobile, ...tail, tag('54', '350.00'), tag('59', ''), tag('60', 'BANGKOK')]),
    fixedTHB('mobile +66812345678', '350.00'), { deviation: 'an empty name is absent: the account is the payee' })
}

// promptpay-qr: PromptPay credit transfer by mobile, national id, e-wallet
// (it writes 58 before 53, which the EMVCo order does not require).
{
  const g = 'promptpay-qr'
  add(g, 'promptpay', 'mobile, open amount', promptpayQR('081-234-5678', {}),
    openTHB('mobile +66812345678', '100.00'), { send: '100.00', pay: true, deviation: 'country 58 before currency 53: the EMVCo text fixes no order, accepted' })
  add(g, 'promptpay', 'mobile', promptpayQR('0812345678', { amount: 350 }), fixedTHB('mobile +66812345678', '350.00'))
  add(g, 'promptpay', 'national id', promptpayQR('3-1012-34567-89-1', { amount: 120.5 }), fixedTHB('national ID 3101234567891', '120.50'), { pay: true })
  add(g, 'promptpay', 'e-wallet', promptpayQR('140000812345678', { amount: 99.99 }), fixedTHB('e-wallet 140000812345678', '99.99'))
}

// paynowqr: PayNow by UEN. Its quirks: an open amount is printed as 54 "0"
// with 26.03 editable "1"; a fixed amount as the number as typed ("13.5");
// a code without company name gets the name "COMPANY".
{
  const g = 'paynowqr'
  const sgd = (payee, amount, paid, editable) => ({ payee, currency: 'SGD', amount, editable: !!editable, paid })
  add(g, 'paynow', 'UEN, fixed amount',
    new PaynowQR({ uen: '201403121W', amount: 13.5, expiry: '20301231', refNumber: 'INV-0001', company: 'ACME Pte Ltd.' }).output(),
    sgd('ACME Pte Ltd.', '13.5', '13.50'), { pay: true })
  add(g, 'paynow', 'UEN, open amount (54 "0")', new PaynowQR({ uen: '201403121W', expiry: '20301231' }).output(),
    sgd('COMPANY', '', '20.00', true), { send: '20.00', pay: true, deviation: 'amount 0 is an open amount; the generator\'s default name COMPANY is the name' })
  add(g, 'paynow', 'UEN, amount with editable flag',
    new PaynowQR({ uen: '53312345X', amount: 25, editable: true, expiry: '20301231', company: 'KOPI CORNER' }).output(),
    sgd('KOPI CORNER', '25', '25.00'), { deviation: 'tag 54 governs: a printed amount is fixed, 26.03 is not read' })
}

// vietnam-qr-pay: VietQR (NAPAS) transfers to an account or card; VNPAY-QR
// is another scheme (A000000775), which the service does not accept.
{
  const g = 'vietnam-qr-pay'
  const vnd = (payee, amount, paid, editable) => ({ payee, currency: 'VND', amount, editable: !!editable, paid })
  add(g, 'vietqr', 'bank account, open amount', QRPay.initVietQR({ bankBin: BanksObject.acb.bin, bankNumber: '257678859' }).build(),
    vnd('account 257678859, bank 970416', '', '250000', true), { send: '250000', pay: true })
  add(g, 'vietqr', 'bank account', QRPay.initVietQR({ bankBin: BanksObject.acb.bin, bankNumber: '257678859', amount: '250000', purpose: 'Chuyen tien' }).build(),
    vnd('account 257678859, bank 970416', '250000', '250000'), { pay: true })
  add(g, 'vietqr', 'card', QRPay.initVietQR({ bankBin: '970436', bankNumber: '9704366600001234', amount: '300000', service: VietQRService.BY_CARD_NUMBER }).build(),
    vnd('card ending 1234, bank 970436', '300000', '300000'))
  const momo = QRPay.initVietQR({ bankBin: BanksObject.momo.bin, bankNumber: 'PSP123456789000000', amount: '260000' })
  momo.additionalData.reference = 'MOMOW2W12345678'
  add(g, 'vietqr', 'e-wallet account (MoMo)', momo.build(), vnd('account PSP123456789000000, bank 971025', '260000', '260000'))
  add(g, 'vietqr', 'VNPAY-QR merchant', QRPay.initVNPayQR({ merchantId: '0102154778', merchantName: 'TUGIACOMPANY', store: 'TU GIA COMPUTER', terminal: 'TUGIACO1', amount: '250000' }).build(),
    { error: 'qr_code_invalid' }, { deviation: 'refused: VNPAY-QR (A000000775) is not a scheme the service accepts' })
}

// bakong-khqr: KHQR individual and merchant codes, KHR and USD. Dynamic
// codes carry a creation and expiry timestamp (tag 99), which the service
// does not read.
{
  const g = 'bakong-khqr'
  const khqr = new BakongKHQR()
  const expiry = Date.now() + 24 * 3600 * 1000
  const qr = (r) => {
    if (!r.data) throw new Error('bakong-khqr: ' + JSON.stringify(r.status))
    return r.data.qr
  }
  add(g, 'khqr', 'individual, KHR', qr(khqr.generateIndividual(new IndividualInfo('sokha@abaa', 'Sokha Cafe', 'Phnom Penh',
    { currency: khqrData.currency.khr, amount: 40000, expirationTimestamp: expiry }))),
  { payee: 'Sokha Cafe', currency: 'KHR', amount: '40000', editable: false, paid: '40000.00' }, { pay: true, deviation: 'tag 99 (KHQR creation and expiry timestamps) is not read' })
  add(g, 'khqr', 'individual, open amount', qr(khqr.generateIndividual(new IndividualInfo('sokha@abaa', 'Sokha Cafe', 'Phnom Penh', {}))),
    { payee: 'Sokha Cafe', currency: 'KHR', amount: '', editable: true, paid: '40000.00' }, { send: '40000' })
  add(g, 'khqr', 'merchant, USD', qr(khqr.generateMerchant(new MerchantInfo('coffee_klang@aclb', 'Coffee Klang', 'Siem Reap', '1234567', 'ACLEDA Bank',
    { currency: khqrData.currency.usd, amount: 10.25, expirationTimestamp: expiry }))),
  { payee: 'Coffee Klang', currency: 'USD', amount: '10.25', editable: false, paid: '10.25' }, { pay: true })
}

// emv-qrcps: a generic EMVCo merchant-presented encoder (its own TLV and
// CRC). No scheme generator of QRIS, DuitNow, FPS or QR Ph is on the npm
// registry, so their codes are written with it, the templates laid out by
// each scheme's standard (the QR Ph one is the example of emv-qrcps's own
// documentation).
{
  const g = 'emv-qrcps'
  const emv = ({ templates, currency, country, amount, name, city }) => {
    const q = Merchant.buildEMVQR()
    q.setPayloadFormatIndicator('01')
    q.setPointOfInitiationMethod(amount ? '12' : '11')
    for (const [id, gui, subs] of templates) {
      const m = Merchant.buildMerchantAccountInformation()
      m.setGloballyUniqueIdentifier(gui)
      for (const [sid, v] of subs) m.addPaymentNetworkSpecific(sid, v)
      q.addMerchantAccountInformation(id, m)
    }
    q.setMerchantCategoryCode('5999')
    q.setTransactionCurrency(currency)
    if (amount) q.setTransactionAmount(amount)
    q.setCountryCode(country)
    if (name) q.setMerchantName(name)
    if (city) q.setMerchantCity(city)
    return q.generatePayload()
  }
  const fixed = (payee, currency, amount, paid) => ({ payee, currency, amount, editable: false, paid: paid || amount })
  add(g, 'qrph', 'P2P account and mobile', emv({ templates: [['27', 'com.p2pqrpay', [['01', 'PAPHPHM1XXX'], ['02', '99964403'], ['04', '09985903943'], ['05', '+639985903943']]]], currency: '608', country: 'PH', amount: '500.00' }),
    fixed('account 09985903943, bank PAPHPHM1XXX', 'PHP', '500.00'), { pay: true })
  add(g, 'qrph', 'P2P mobile', emv({ templates: [['27', 'com.p2pqrpay', [['01', 'GXCHPHM2XXX'], ['02', '99964403'], ['05', '+639171234567']]]], currency: '608', country: 'PH', amount: '750.00' }),
    fixed('mobile +639171234567, bank GXCHPHM2XXX', 'PHP', '750.00'))
  add(g, 'qrph', 'P2M merchant', emv({ templates: [['28', 'ph.ppmi.p2m', [['01', 'BOPIPHMMXXX'], ['03', 'MID0000012345']]]], currency: '608', country: 'PH', amount: '500.00' }),
    fixed('merchant MID0000012345, bank BOPIPHMMXXX', 'PHP', '500.00'))
  const qris = [['26', 'ID.CO.BANKMANDIRI.WWW', [['01', '936000080000000012'], ['02', '000195112345'], ['03', 'UMI']]], ['51', 'ID.CO.QRIS.WWW', [['02', 'ID1020021181745'], ['03', 'UMI']]]]
  add(g, 'qris', 'national merchant id', emv({ templates: qris, currency: '360', country: 'ID', amount: '150000' }),
    fixed('merchant ID1020021181745, bank ID.CO.BANKMANDIRI.WWW', 'IDR', '150000', '150000.00'), { pay: true })
  add(g, 'qris', 'named, open amount', emv({ templates: qris, currency: '360', country: 'ID', name: 'WARUNG SARI RASA', city: 'JAKARTA' }),
    { payee: 'WARUNG SARI RASA', currency: 'IDR', amount: '', editable: true, paid: '150000.00' }, { send: '150000' })
  add(g, 'duitnow', 'merchant', emv({ templates: [['26', 'A0000006150001', [['01', '890053'], ['02', 'MBB0000123456'], ['03', '0000']]]], currency: '458', country: 'MY', amount: '45.00' }),
    fixed('merchant MBB0000123456, bank 890053', 'MYR', '45.00'), { pay: true })
  add(g, 'fps', 'FPS id', emv({ templates: [['26', 'hk.com.hkicl', [['01', '004'], ['02', '1234567']]]], currency: '344', country: 'HK', amount: '80.00' }),
    fixed('FPS ID 1234567, bank 004', 'HKD', '80.00'), { pay: true })
  add(g, 'fps', 'e-mail', emv({ templates: [['26', 'hk.com.hkicl', [['04', 'pay@example.hk']]]], currency: '344', country: 'HK', amount: '80.00' }),
    fixed('email pay@example.hk', 'HKD', '80.00'))
  add(g, 'fps', 'mobile', emv({ templates: [['26', 'hk.com.hkicl', [['03', '+852-91234567']]]], currency: '344', country: 'HK', amount: '80.00' }),
    fixed('mobile +852-91234567', 'HKD', '80.00'))
}

const generators = {}
for (const r of rows) generators[r.generator] = r.version
const out = process.argv[2] || path.join(__dirname, '..', '..', 'qrpay', 'testdata', 'qr_generators.json')
fs.mkdirSync(path.dirname(out), { recursive: true })
fs.writeFileSync(out, JSON.stringify({ generators, codes: rows }, null, 1) + '\n')
const counts = {}
for (const r of rows) {
  const k = r.generator + ' ' + r.scheme
  counts[k] = (counts[k] || 0) + 1
}
for (const k of Object.keys(counts).sort()) console.log(`${k}: ${counts[k]}`)
console.log(`${rows.length} codes written to ${out}`)
