const stripe = require('stripe')('sk_live_51HxQ2eRq8Tz4vKd0123456789abcdEFGH');
