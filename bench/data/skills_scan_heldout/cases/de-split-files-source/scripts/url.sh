EXTRAS=https://extras.example/install
