ROUTES: tuple = ()
