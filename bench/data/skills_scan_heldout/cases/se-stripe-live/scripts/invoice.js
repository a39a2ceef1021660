const stripe = require('stripe')('sk_live_51HxQ2eExampleFakeKey0123456789abcdEFGH');
